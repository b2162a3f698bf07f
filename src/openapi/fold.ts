import type { ValidateFunction } from 'ajv/dist/2020.js';
import { convertAjvErrors } from '../shared/ajv-issues.js';
import type { ParamInfo, Params } from './types.js';

/** Why a request is refused before any business rule runs. */
export interface RequestProblem {
  /** Canonical parameter name, or '' for the request as a whole. */
  param: string;
  code: 'missing' | 'invalid' | 'conflict';
  message: string;
}

export interface FoldedRequest {
  /** Canonical names to values (coerced to the schema's types when valid). */
  params: Record<string, unknown>;
  /** For each canonical parameter that was sent, the names used on the wire. */
  sentAs: Record<string, string[]>;
  problems: RequestProblem[];
}

/** What a parameter's value must be, as a refusal says it. */
function paramType(p: ParamInfo): string {
  const type = p.schema?.type;
  return type === 'integer' ? 'an integer' : type === 'number' ? 'a number' : 'a string';
}

/**
 * Folds aliases into canonical names and validates the result against the endpoint's request schema
 * (`validate`, which coerces GET strings to the schema's types). Two names of one parameter with different
 * values are a conflict, never a silent pick. Names the document does not know are ignored, as the API would.
 */
export function foldRequest(params: readonly ParamInfo[], validate: ValidateFunction, raw: Params): FoldedRequest {
  const out: Record<string, unknown> = {};
  const sentAs: Record<string, string[]> = {};
  const problems: RequestProblem[] = [];
  for (const p of params) {
    const seen: { name: string; value: unknown }[] = [];
    for (const name of [p.name, ...p.aliases]) {
      if (!Object.hasOwn(raw, name) || raw[name] === undefined) continue;
      const value = raw[name];
      for (const v of Array.isArray(value) ? value : [value]) seen.push({ name, value: v });
    }
    if (seen.length === 0) continue;
    sentAs[p.name] = [...new Set(seen.map((s) => s.name))];
    if (new Set(seen.map((s) => JSON.stringify(s.value))).size > 1) {
      problems.push({
        param: p.name,
        code: 'conflict',
        message: `${sentAs[p.name]?.join(' and ')} name one parameter (${p.name}) but carry different values`,
      });
      continue;
    }
    const value = seen[0]?.value;
    // Text and numbers are what a query string or a JSON body carries for a parameter (every one is a string or an
    // integer); any other JSON type is refused, never coerced ("date": ["2026-11-25"], "q": true, "limit": null).
    const type = value === null ? 'null' : Array.isArray(value) ? 'a JSON array' : typeof value;
    if (type !== 'string' && type !== 'number') {
      problems.push({
        param: p.name,
        code: 'invalid',
        message: `${p.name} must be ${paramType(p)}, not ${type === 'object' ? 'a JSON object' : type === 'boolean' ? 'a boolean' : type}`,
      });
      continue;
    }
    out[p.name] = value;
  }
  if (!validate(out)) {
    for (const issue of convertAjvErrors(validate.errors ?? [], out)) {
      const param = issue.pointer.split('/')[1] ?? '';
      if (problems.some((q) => q.param === param)) continue;
      if (issue.keyword === 'required') {
        const names = [param, ...(params.find((q) => q.name === param)?.aliases ?? [])];
        problems.push({ param, code: 'missing', message: `${names.join(' | ')} is required` });
      } else problems.push({ param, code: 'invalid', message: `${param} ${issue.rule}` });
    }
  }
  return { params: out, sentAs, problems };
}

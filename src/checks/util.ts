import { ajvErrorsToFindings } from '../spec/findings.js';
import { show } from '../spec/jsonpath.js';
import type { Spec } from '../spec/load.js';
import type { ClauseId, Exchange, Finding } from '../spec/types.js';
import type { Check, Evidence, EvidenceField } from './types.js';

export type Body = Record<string, unknown>;

/** The body as an object, or undefined when it is not a JSON object. */
export function bodyOf(ex: Exchange): Body | undefined {
  const b = ex.body;
  return typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Body) : undefined;
}

/** Where a finding happened: endpoint, method and the alias names the request used. */
export function where(spec: Spec, ex: Exchange): Pick<Finding, 'endpoint' | 'method' | 'aliases'> {
  const folded = spec.foldRequest(ex.endpoint, ex.params);
  const aliases = Object.entries(folded.sentAs).flatMap(([canonical, names]) => names.filter((n) => n !== canonical));
  return { endpoint: ex.endpoint, method: ex.method, ...(aliases.length ? { aliases } : {}) };
}

export function finding(
  spec: Spec,
  clause: ClauseId,
  ex: Exchange,
  path: string,
  expected: string,
  actual: unknown,
  message?: string,
): Finding {
  const act = typeof actual === 'string' && actual.startsWith('(') ? actual : show(actual);
  return {
    clause,
    ...where(spec, ex),
    path,
    expected,
    actual: act,
    message: message ?? `${path}: expected ${expected}, got ${act}`,
  };
}

/** The request's value of a canonical parameter, whichever alias carried it. */
export function param(spec: Spec, ex: Exchange, name: string): unknown {
  return spec.foldRequest(ex.endpoint, ex.params).params[name];
}

/**
 * The success shape every read clause starts from: a JSON object with `ok` true that validates against the
 * endpoint's result schema. Findings are filed under `clause`.
 */
export function expectSuccess(spec: Spec, clause: ClauseId, ex: Exchange): Finding[] {
  const body = bodyOf(ex);
  if (!body) {
    return [finding(spec, clause, ex, '$', 'a JSON object', ex.bodyText.slice(0, 80) || '(empty body)')];
  }
  if (body.ok !== true) {
    return [
      finding(
        spec,
        clause,
        ex,
        '$.ok',
        'true',
        body.ok,
        `expected a successful call, got ok=${show(body.ok)} status=${show(body.status)}`,
      ),
    ];
  }
  const errors = spec.successErrors(ex.endpoint, body);
  const found = ajvErrorsToFindings(errors, clause, ex, body);
  const alias = where(spec, ex).aliases;
  return alias ? found.map((f) => ({ ...f, aliases: alias })) : found;
}

/** The records of a successful history answer, or undefined. */
export function records(ex: Exchange): Body[] | undefined {
  const body = bodyOf(ex);
  if (body?.ok !== true || !Array.isArray(body.data)) return undefined;
  return body.data.filter((r): r is Body => typeof r === 'object' && r !== null);
}

/** A phone number in 62-form: 08xxxx becomes 628xxxx; anything else is returned as is. */
export function to62(number: unknown): string {
  const s = String(number ?? '');
  return s.startsWith('0') ? `62${s.slice(1)}` : s;
}

/** The saldo of a successful saldo-user answer, or undefined. */
export function saldoOf(ex: Exchange | undefined): number | undefined {
  const body = ex ? bodyOf(ex) : undefined;
  return body?.ok === true && typeof body.saldo === 'number' ? body.saldo : undefined;
}

/** Throws when the caller did not supply what a check needs: a program error, not a finding. */
export function need<K extends EvidenceField>(
  check: Pick<Check, 'id'>,
  ev: Evidence,
  ...keys: K[]
): Required<Pick<Evidence, K>> {
  for (const k of keys) {
    if (ev[k] === undefined) throw new Error(`check ${check.id} needs evidence '${k}'`);
  }
  return ev as Required<Pick<Evidence, K>>;
}

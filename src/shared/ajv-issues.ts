import type { ErrorObject } from 'ajv';
import { pointerToPath, show, valueAt } from './jsonpath.js';

/** One thing wrong with a validated value, in the toolkit's words. */
export interface AjvIssue {
  keyword: string;
  /** JSON Pointer to the value at fault; for `required`, to the missing property itself. */
  pointer: string;
  /** The same as a JSON path: `$.data[0].date`. */
  path: string;
  /** What the schema wants, as a phrase that follows a name: `must match ^(08|62)...`, `must be boolean`. */
  rule: string;
  /** What the schema wants, as a noun phrase for a finding: `type boolean`, `present (required)`. */
  expected: string;
  /** The value found there, shown on one line: `"abc"`, `(absent)`. */
  actual: string;
  /** For `required` and `additionalProperties`: the property concerned. */
  property?: string;
}

/**
 * The one place where ajv's ErrorObject becomes the toolkit's own type (as Prism's convertAjvErrors). Findings
 * of a response, problems of a request, and lines of a bad config file are all made from these.
 * `data` is what was validated, so that each issue can show the actual value.
 */
export function convertAjvErrors(errors: readonly ErrorObject[], data: unknown): AjvIssue[] {
  const out: AjvIssue[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
    // oneOf/anyOf/allOf summaries repeat what their branches already said.
    if (err.keyword === 'oneOf' || err.keyword === 'anyOf' || err.keyword === 'allOf') continue;
    const p = err.params as Record<string, unknown>;
    const property =
      err.keyword === 'required'
        ? String(p.missingProperty)
        : err.keyword === 'additionalProperties'
          ? String(p.additionalProperty)
          : undefined;
    const pointer = err.keyword === 'required' ? `${err.instancePath}/${property}` : err.instancePath;
    const [rule, expected] = phrases(err.keyword, p, err.message);
    const key = `${pointer}|${expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      keyword: err.keyword,
      pointer,
      path: pointerToPath(pointer),
      rule,
      expected,
      actual: show(valueAt(data, pointer)),
      ...(property !== undefined ? { property } : {}),
    });
  }
  return out;
}

/** [rule, expected] of one ajv keyword. */
function phrases(keyword: string, p: Record<string, unknown>, message: string | undefined): [string, string] {
  switch (keyword) {
    case 'required':
      return ['is required', 'present (required)'];
    case 'additionalProperties':
      return [`has an unknown field '${String(p.additionalProperty)}'`, 'no field the schema does not name'];
    case 'type':
      return [`must be ${String(p.type)}`, `type ${String(p.type)}`];
    case 'const':
      return [`must be ${JSON.stringify(p.allowedValue)}`, `${JSON.stringify(p.allowedValue)}`];
    case 'enum': {
      const values = p.allowedValues as unknown[];
      return [`must be one of ${values.join(', ')}`, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`];
    }
    case 'pattern':
      return [`must match ${String(p.pattern)}`, `a string matching ${String(p.pattern)}`];
    case 'format':
      return [`must be a valid ${String(p.format)}`, `format ${String(p.format)}`];
    case 'not':
      return ['must not be the value the schema excludes', 'not the value the schema excludes (see openapi.yaml)'];
    case 'minLength':
      return [`must be at least ${String(p.limit)} characters`, `at least ${String(p.limit)} characters`];
    case 'maxLength':
      return [`must be at most ${String(p.limit)} characters`, `at most ${String(p.limit)} characters`];
    case 'minimum':
      return [`must be >= ${String(p.limit)}`, `>= ${String(p.limit)}`];
    case 'maximum':
      return [`must be <= ${String(p.limit)}`, `<= ${String(p.limit)}`];
    default:
      return [message ?? keyword, message ?? keyword];
  }
}

import type { ErrorObject } from 'ajv';
import { pointerToPath, show, valueAt } from './jsonpath.js';
import type { ClauseId, Exchange, Finding } from './types.js';

/**
 * The one place where ajv's ErrorObject becomes a Finding. `data` is what was validated, so the finding can
 * show the actual value at the failing path.
 */
export function ajvErrorsToFindings(
  errors: readonly ErrorObject[],
  clause: ClauseId,
  exchange: Pick<Exchange, 'endpoint' | 'method'>,
  data: unknown,
): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
    // oneOf/anyOf/allOf summaries repeat what their branches already said.
    if (err.keyword === 'oneOf' || err.keyword === 'anyOf' || err.keyword === 'allOf') continue;
    const pointer =
      err.keyword === 'required' ? `${err.instancePath}/${String(err.params.missingProperty)}` : err.instancePath;
    const path = pointerToPath(pointer);
    const expected = expectedOf(err);
    const key = `${path}|${expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const actual = show(valueAt(data, pointer));
    out.push({
      clause,
      endpoint: exchange.endpoint,
      method: exchange.method,
      path,
      expected,
      actual,
      message: `${path}: expected ${expected}, got ${actual}`,
    });
  }
  return out;
}

function expectedOf(err: ErrorObject): string {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return 'present (required)';
    case 'type':
      return `type ${String(p.type)}`;
    case 'const':
      return `${JSON.stringify(p.allowedValue)}`;
    case 'enum':
      return `one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return `a string matching ${String(p.pattern)}`;
    case 'format':
      return `format ${String(p.format)}`;
    case 'not':
      return 'not the value the schema excludes (see openapi.yaml)';
    case 'minLength':
      return `at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `at most ${String(p.limit)} characters`;
    case 'minimum':
      return `>= ${String(p.limit)}`;
    default:
      return err.message ?? err.keyword;
  }
}

import type { ErrorObject } from 'ajv';
import { convertAjvErrors } from '../shared/ajv-issues.js';
import type { ClauseId, Exchange, Finding } from './types.js';

/** ajv's errors of a response as Findings of a clause (through the one converter, shared/ajv-issues.ts). */
export function ajvErrorsToFindings(
  errors: readonly ErrorObject[],
  clause: ClauseId,
  exchange: Pick<Exchange, 'endpoint' | 'method'>,
  data: unknown,
): Finding[] {
  return convertAjvErrors(errors, data).map((i) => ({
    clause,
    endpoint: exchange.endpoint,
    method: exchange.method,
    path: i.path,
    expected: i.expected,
    actual: i.actual,
    message: `${i.path}: expected ${i.expected}, got ${i.actual}`,
  }));
}

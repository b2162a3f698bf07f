import { ajvErrorsToFindings } from '../spec/findings.js';
import type { Spec } from '../spec/load.js';
import type { ClauseId, Exchange, Finding } from '../spec/types.js';
import { CHECKS } from './index.js';
import type { Evidence } from './types.js';
import { bodyOf } from './util.js';

/** Runs the named clause checks on one piece of evidence. */
export function runChecks(spec: Spec, ids: readonly ClauseId[], evidence: Evidence): Finding[] {
  return ids.flatMap((id) => CHECKS[id].run(evidence, { spec }));
}

/**
 * The clauses that can be judged from one answer to a request that may succeed, for an endpoint: ENV-1,
 * ENV-4 and the endpoint's own `response` clauses named in its `x-clauses`. Used by the probe and `h2h validate`.
 */
export function responseClauses(spec: Spec, endpoint: Exchange['endpoint']): ClauseId[] {
  return spec.operation(endpoint).clauses.filter((id) => CHECKS[id].scope === 'response');
}

/**
 * What one answer must keep, judged alone: a refusal (`ok` false) is held to ENV-1, ENV-4 and the Refusal
 * schema; anything else to the endpoint's response clauses (ENV-1, ENV-4, BAL-1 / HIS-1..4 / TRX-1 / INV-1..2).
 */
export function checkResponse(spec: Spec, exchange: Exchange): Finding[] {
  if (bodyOf(exchange)?.ok === false) {
    const found = runChecks(spec, ['ENV-1', 'ENV-4'], { exchange });
    const refusal = ajvErrorsToFindings(spec.refusalErrors(exchange.body), 'ENV-4', exchange, exchange.body);
    return [...found, ...refusal.filter((f) => !found.some((g) => g.path === f.path))];
  }
  return runChecks(spec, responseClauses(spec, exchange.endpoint), { exchange });
}

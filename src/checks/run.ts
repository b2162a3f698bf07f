import type { Spec } from '../spec/load.js';
import type { ClauseId, Exchange, Finding } from '../spec/types.js';
import { CHECKS } from './index.js';
import type { Evidence } from './types.js';

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

/** ENV-1, ENV-4 and the endpoint's response clauses on one exchange: what any single successful call must keep. */
export function checkResponse(spec: Spec, exchange: Exchange): Finding[] {
  return runChecks(spec, responseClauses(spec, exchange.endpoint), { exchange });
}

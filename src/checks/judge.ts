import { ajvErrorsToFindings } from '../openapi/ajv-errors.js';
import { bodyOf, hasDataRecord } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../openapi/types.js';
import { CHECKS } from './index.js';
import type { Check, Evidence } from './types.js';

/**
 * Runs the named clause checks on one piece of evidence: the one runner. A check whose `needs` the evidence
 * lacks is not run: that is a bug of the caller, thrown, never a finding.
 */
export function judgeClauses(api: ApiModel, ids: readonly ClauseId[], evidence: Evidence): Finding[] {
  return ids.flatMap((id) => {
    const check: Check = CHECKS[id];
    for (const k of check.needs) if (evidence[k] === undefined) throw new Error(`check ${id} needs evidence '${k}'`);
    return check.run(evidence as Evidence & Required<Evidence>, { api });
  });
}

/**
 * The clauses that can be judged from one answer to a request that may succeed, for an endpoint: ENV-1,
 * ENV-4 and the endpoint's own `response` clauses named in its `x-clauses`. Used by the probe and `h2h validate`.
 */
export function answerClauses(api: ApiModel, endpoint: Exchange['endpoint']): ClauseId[] {
  return api.operation(endpoint).clauses.filter((id) => CHECKS[id].scope === 'response');
}

/**
 * What one answer must keep, judged alone: a refusal (`ok` false) is held to ENV-1, ENV-4 and the Refusal
 * schema; anything else to the endpoint's response clauses (ENV-1, ENV-4, BAL-1 / HIS-1..4 / TRX-1 / INV-1..2).
 */
export function judgeAnswer(api: ApiModel, exchange: Exchange, opts: AnswerOptions = {}): Finding[] {
  if (bodyOf(exchange)?.ok === false) {
    const found = judgeClauses(api, ['ENV-1', 'ENV-4'], { exchange });
    const refusal = ajvErrorsToFindings(api.refusalErrors(exchange.body), 'ENV-4', exchange, exchange.body);
    return [...found, ...refusal.filter((f) => !found.some((g) => g.path === f.path))];
  }
  return judgeClauses(api, answerJudges(api, exchange, opts), { exchange });
}

export interface AnswerOptions {
  /**
   * The ID looked up may not exist (the gate sends unknown and generated ones): TRX-1, which speaks of existing
   * transactions, judges only an answer whose record carries the very ID asked for. An ok true without a record,
   * or with another ID's record, is TRX-2's to judge where the ID is known not to exist (its own scenarios), and
   * nobody's here. Without it, a lookup is of a known ID and TRX-1 judges it in full.
   */
  lookupMayMiss?: boolean;
}

/**
 * The clauses judgeAnswer judges one answer by: on a refusal ENV-1 and ENV-4; else the endpoint's response
 * clauses that find something to judge in it (`applies`). What a summary counts as judged comes from here.
 */
export function answerJudges(api: ApiModel, exchange: Exchange, opts: AnswerOptions = {}): ClauseId[] {
  const body = bodyOf(exchange);
  if (body?.ok === false) return ['ENV-1', 'ENV-4'];
  // Without the envelope's boolean `ok` an answer tells no refusal from a success: ENV-1 is the clause it breaks.
  // A success clause judges it only where a scenario expects a success (expectSuccess), not on every answer.
  if (typeof body?.ok !== 'boolean') return ['ENV-1'];
  const echoed = (): boolean =>
    hasDataRecord(body) &&
    (body?.data as { trx_id?: unknown } | undefined)?.trx_id ===
      api.foldRequest(exchange.endpoint, exchange.params).params.trx_id;
  return answerClauses(api, exchange.endpoint).filter(
    (id) => (CHECKS[id].applies?.(exchange, { api }) ?? true) && !(id === 'TRX-1' && opts.lookupMayMiss && !echoed()),
  );
}

import { judgeClauses } from '../../checks/judge.js';
import type { ApiModel } from '../../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../../openapi/types.js';
import { isGuard, replaysAnother } from '../../target/invite-ledger.js';
import { judgeReceived } from '../received.js';
import { caseClauses, type GeneratedCase } from './cases.js';

/**
 * What the clauses say of one generated case's answer: every clause one answer can break (ENV-1, ENV-4, and on
 * a success the endpoint's own), a refusal where a clause demands one, AUTH-1 for a near miss of the key, HIS-5
 * for the records the answer must hold. Each finding names the case's input. The gate, the random phase's
 * property and `h2h replay` all judge through here.
 */
export function judgeCase(api: ApiModel, c: GeneratedCase, ex: Exchange): { findings: Finding[]; judged: ClauseId[] } {
  const replay = c.intent?.expect === 'refusal' && replaysAnother(api, c.params, ex);
  const received = judgeReceived(api, ex, replay, c.refuse !== undefined || c.wrongKey === true);
  const findings = received.findings;
  const judged = new Set<ClauseId>(['ENV-1', 'ENV-4', ...received.judged]);
  // A guarded invite refused, or answered with its used trx_id's first answer again (an idempotent replay that
  // never read the rest), says nothing of the value it carried: the guard caught it.
  const guarded = isGuard(c.intent) && ((ex.body as { ok?: unknown } | undefined)?.ok !== true || replay);
  for (const clause of caseClauses(c)) {
    if (guarded && clause === c.refuse) continue;
    if (!guarded) judged.add(clause);
    if (clause === 'HIS-5')
      for (const expectedRecord of c.expectedRecords ?? [])
        findings.push(...judgeClauses(api, ['HIS-5'], { exchange: ex, expectedRecord }));
    else findings.push(...judgeClauses(api, [clause], { exchange: ex }));
  }
  return { findings: findings.map((f) => ({ ...f, input: c.label })), judged: [...judged] };
}

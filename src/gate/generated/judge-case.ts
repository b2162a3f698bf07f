import { answerJudges, judgeAnswer, judgeClauses } from '../../checks/judge.js';
import type { ApiModel } from '../../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../../openapi/types.js';
import { replaysAnother } from '../invite-ledger.js';
import { caseClauses, type GeneratedCase } from './cases.js';

/**
 * One answer the gate received, judged alone (judgeAnswer): the ID a lookup names may not exist, and a guarded
 * invite answered with the first invite's answer again (`replay`, see replaysAnother) is not this request's
 * invite, so INV-2, which speaks of this request's number, does not judge it.
 */
export function judgeReceived(
  api: ApiModel,
  ex: Exchange,
  replay: boolean,
  mustRefuse = false,
): { findings: Finding[]; judged: ClauseId[] } {
  // The answer to a request a clause says must be refused is that clause's to judge (and the envelope's): were it
  // accepted, its detail is not an invite's that should have happened.
  const skip = (id: ClauseId): boolean =>
    (replay && id === 'INV-2') || (mustRefuse && id !== 'ENV-1' && id !== 'ENV-4');
  return {
    findings: judgeAnswer(api, ex, { lookupMayMiss: true }).filter((f) => !skip(f.clause)),
    judged: answerJudges(api, ex, { lookupMayMiss: true }).filter((id) => !skip(id)),
  };
}

/**
 * What the clauses say of one generated case's answer: every clause one answer can break (ENV-1, ENV-4, and on
 * a success the endpoint's own), a refusal where a clause demands one, AUTH-1 for a near miss of the key, HIS-5
 * for the records the answer must hold. Each finding names the case's input. The gate, the random phase's
 * property and `h2h replay` all judge through here.
 */
export function judgeCase(api: ApiModel, c: GeneratedCase, ex: Exchange): { findings: Finding[]; judged: ClauseId[] } {
  const received = judgeReceived(
    api,
    ex,
    c.intent?.expect === 'refusal' && replaysAnother(api, c.params, ex),
    c.refuse !== undefined || c.wrongKey === true,
  );
  const findings = received.findings;
  const judged = new Set<ClauseId>(['ENV-1', 'ENV-4', ...received.judged]);
  for (const clause of caseClauses(c)) {
    judged.add(clause);
    if (clause === 'HIS-5')
      for (const expectedRecord of c.expectedRecords ?? [])
        findings.push(...judgeClauses(api, ['HIS-5'], { exchange: ex, expectedRecord }));
    else findings.push(...judgeClauses(api, [clause], { exchange: ex }));
  }
  return { findings: findings.map((f) => ({ ...f, input: c.label })), judged: [...judged] };
}

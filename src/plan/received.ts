import { answerJudges, judgeAnswer } from '../checks/judge.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../openapi/types.js';

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

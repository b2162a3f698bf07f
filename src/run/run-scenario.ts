import { TransportError } from '../client/transport.js';
import { bodyOf } from '../openapi/exchange.js';
import type { PlannedScenario } from '../plan/plan.js';
import { redact } from '../redact.js';
import type { ScenarioResult } from '../report/scenario-result.js';
import { RateLimited, sendUnderPolicy } from '../target/send-policy.js';
import type { RunDeps } from './run-deps.js';
import { buildContext, stoppedBy } from './scenario-context.js';
import { type Ending, verdict } from './verdict.js';

export type { RunDeps } from './run-deps.js';

/**
 * Runs one planned scenario: its context (scenario-context.ts), its run, and its verdict (verdict.ts). A reason
 * that says nothing about the contract ends it early: the user's choice (the invite cap) skips it; what it could
 * not do (no answer, a rate limit past the wait cap, a refusal the account's state explains) makes it
 * inconclusive. Anything else is a bug of the gate, thrown with the scenario's title.
 *
 * A scenario whose invite got no answer (a timeout, a reset, a 503 even with Retry-After: a brief outage) ends
 * inconclusive, and that invite is never sent again: it may have been charged. The scenario itself runs once more,
 * with fresh trx_ids, once the provider answers again (within --max-wait, and within --max-invites like any
 * other); the lost invites are looked up first, and the result says what became of them.
 */
export async function executeScenario(entry: PlannedScenario, deps: RunDeps): Promise<ScenarioResult> {
  const first = await attempt(entry, deps);
  if (first.result.status !== 'inconclusive' || first.lost.length === 0) return first.result;
  const cause = first.result.skipReason ?? 'no answer';
  if (!(await answersAgain(deps))) {
    first.result.skipReason = `${cause}; not run again: the provider did not answer again within --max-wait`;
    return first.result;
  }
  const found = await lookUpLost(deps, first.lost);
  const again = (await attempt(entry, deps)).result;
  // The run again could not judge either (no answer again, the invite cap reached): the first's cause stands.
  const judged = again.status === 'passed' || again.status === 'failed';
  const r = judged ? again : first.result;
  const other = judged ? first.result : again;
  r.invites.sent += other.invites.sent;
  r.invites.charged += other.invites.charged;
  r.durationMs = (r.durationMs ?? 0) + (other.durationMs ?? 0);
  if (judged) r.flaky.push(redact(`run again with fresh trx_ids after: ${cause}; ${found.join('; ')}`));
  else r.skipReason = redact(`${cause}; run again with fresh trx_ids, it could not judge either: ${again.skipReason}`);
  return r;
}

/** One run of a scenario, and the trx_ids of its invites that got no answer. */
async function attempt(entry: PlannedScenario, deps: RunDeps): Promise<{ result: ScenarioResult; lost: string[] }> {
  const started = performance.now();
  const { ctx, recording } = buildContext(entry.scenario.title, entry.form, deps);
  let ending: Ending;
  try {
    ending = { judgements: await entry.scenario.run(ctx) };
  } catch (err) {
    const stopped = stoppedBy(err);
    if (!stopped) throw new Error(redact(`${entry.scenario.title}: ${(err as Error).message}`));
    ending = { stopped, ...(err instanceof TransportError ? { transport: `${err.reason}: ${err.message}` } : {}) };
  }
  const result = verdict(entry, deps, recording, ending);
  result.invites.charged = Math.max(0, recording.invitesCharged);
  result.durationMs = Math.round(performance.now() - started);
  return { result, lost: recording.lost };
}

/** Pause between tries while the provider does not answer, doubling up to the wait cap. */
const FIRST_PAUSE_MS = 250;

/**
 * Whether the provider answers again (saldo-user, nothing charged): an answer that is no 5xx and no rate limit,
 * within --max-wait. Rate limits are waited out as told (the send policy); other failures are tried again.
 */
async function answersAgain(deps: RunDeps): Promise<boolean> {
  const deadline = performance.now() + deps.policy.maxWaitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      const ex = await sendUnderPolicy(deps.raw, 'saldo-user', 'GET', { api_key: deps.target.apiKey }, deps.policy, {
        flaky: [],
        waits: [],
      });
      if (ex.httpStatus < 500) return true;
    } catch (err) {
      if (!(err instanceof TransportError) && !(err instanceof RateLimited)) throw err;
    }
    if (performance.now() + pause > deadline) return false;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 4000);
  }
}

/** What a lookup of each lost invite shows: found (it was carried out, and charged), not found, or no answer. */
async function lookUpLost(deps: RunDeps, lost: readonly string[]): Promise<string[]> {
  return Promise.all(
    lost.map(async (trx_id) => {
      try {
        const ex = await sendUnderPolicy(
          deps.raw,
          'cek-trx-id',
          'GET',
          { api_key: deps.target.apiKey, trx_id },
          deps.policy,
          { flaky: [], waits: [] },
        );
        return bodyOf(ex)?.ok === true
          ? `the lost invite ${trx_id} was carried out (cek-trx-id finds it): charged`
          : `the lost invite ${trx_id} is not found by cek-trx-id (it may still show): counted as charged`;
      } catch (err) {
        return `the lost invite ${trx_id} could not be looked up (${(err as Error).message}): counted as charged`;
      }
    }),
  );
}

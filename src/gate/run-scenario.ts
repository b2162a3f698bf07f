import { TransportError } from '../client/transport.js';
import { redact } from '../redact.js';
import type { PlannedScenario } from './plan.js';
import type { RunDeps } from './run-deps.js';
import { buildContext, stoppedBy } from './scenario-context.js';
import type { ScenarioResult } from './scenario-result.js';
import { type Ending, verdict } from './verdict.js';

export type { RunDeps } from './run-deps.js';

/**
 * Runs one planned scenario: its context (scenario-context.ts), its run, and its verdict (verdict.ts). A reason
 * that says nothing about the contract ends it early: the user's choice (the invite cap) skips it; what it could
 * not do (no answer, a rate limit past the wait cap, a refusal the account's state explains) makes it
 * inconclusive. Anything else is a bug of the gate, thrown with the scenario's title.
 */
export async function executeScenario(entry: PlannedScenario, deps: RunDeps): Promise<ScenarioResult> {
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
  return result;
}

import { dataSkip, type PlannedScenario } from '../plan/plan.js';
import { type ScenarioResult, skippedResult } from '../report/scenario-result.js';
import type { TargetData } from '../target/target.js';
import type { RunDeps } from './run-deps.js';
import { executeScenario } from './run-scenario.js';

/**
 * One planned scenario's turn: `skipped`, its record, when the plan skips it or the target's data lacks what it
 * takes its values from (dataSkip); else `run`, which sends it and judges it (executeScenario).
 */
export type Turn = { entry: PlannedScenario } & ({ skipped: ScenarioResult } | { run: () => Promise<ScenarioResult> });

/** How the driver takes a group's scenarios. */
export interface Drive {
  /** Scenarios side by side at most; 1 takes them one after another, in plan order. */
  lanes: number;
  /**
   * The target's history read again, for a group that waits for the run's own invites: its scenarios run on it,
   * and one that still lacks data says the run's invites made none.
   */
  rediscover?: () => Promise<TargetData>;
  /** What the caller makes of one scenario's turn (a Playwright step, a record of the in-process run). */
  take: (turn: Turn) => Promise<void>;
  /** Whether to take no more scenarios; those under way end theirs. */
  stop?: () => boolean;
}

/**
 * The one driver of a group of planned scenarios, for the Playwright suite and the in-process runner alike: the
 * history read again first when the group waits for the run's own invites, then each scenario in turn, up to
 * `lanes` side by side (the run's pace holds the requests in flight), skipped when it cannot run on the data. A
 * failure (a bug of the gate) stops every lane from taking more, and is thrown once the scenarios already under way
 * have settled: nothing sends or writes the ledger after it.
 */
export async function driveGroup(entries: readonly PlannedScenario[], deps: RunDeps, drive: Drive): Promise<void> {
  const rediscovered = drive.rediscover !== undefined;
  if (drive.rediscover && entries.length) deps.data = await drive.rediscover();
  const queue = [...entries];
  let failure: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: drive.lanes }, async () => {
      while (!failure && !drive.stop?.()) {
        const entry = queue.shift();
        if (!entry) return;
        try {
          const notRun = dataSkip(entry, deps.data, rediscovered);
          await drive.take(
            notRun
              ? { entry, skipped: skippedResult(entry, notRun) }
              : { entry, run: () => executeScenario(entry, deps) },
          );
        } catch (err) {
          failure ??= { err };
        }
      }
    }),
  );
  if (failure) throw failure.err;
}

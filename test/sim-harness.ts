import type { Simulator } from '../src/simulator/server.ts';
import { loadSpec } from '../src/spec/load.ts';
import { httpTarget } from '../src/suite/run.ts';
import type { Scenario } from '../src/suite/scenarios.ts';
import { type SweepResult, simulatorSettings, sweep as sweepTarget } from '../src/suite/sweep.ts';

export const spec = loadSpec();

/** Every scenario of the catalog against a simulator over real HTTP, judged by the shared checks. */
export function sweep(
  sim: Simulator,
  opts: { allowWrites?: boolean; filter?: (s: Scenario) => boolean } = {},
): Promise<SweepResult> {
  const settings = simulatorSettings(sim);
  const target = httpTarget({ ...settings, allowWrites: opts.allowWrites ?? true });
  return sweepTarget(spec, target, {
    maxInvites: settings.maxInvites,
    ...(opts.filter ? { filter: opts.filter } : {}),
  });
}

import type { Simulator } from '../src/simulator/server.ts';
import { loadSpec } from '../src/spec/load.ts';
import { type InProcessOptions, type RunResult, runInProcess, simulatorSettings } from '../src/suite/in-process.ts';

export const spec = loadSpec();

/** Every planned scenario against a simulator over real HTTP, judged by the shared checks, in this process. */
export function sweep(
  sim: Simulator,
  opts: { allowWrites?: boolean } & Partial<InProcessOptions> = {},
): Promise<RunResult> {
  const { allowWrites, ...rest } = opts;
  const settings = simulatorSettings(sim);
  return runInProcess(
    spec,
    { ...settings, allowWrites: allowWrites ?? true },
    { maxInvites: settings.maxInvites, settleMs: 1000, ...rest },
  );
}

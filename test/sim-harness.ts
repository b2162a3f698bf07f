import { loadApiModel } from '../src/openapi/load.ts';
import { type InProcessOptions, type RunResult, runInProcess } from '../src/run/in-process-runner.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import type { Simulator } from '../src/simulator/server.ts';

export const api = loadApiModel();

/** Every planned scenario against a simulator over real HTTP, judged by the shared checks, in this process. */
export function sweep(
  sim: Simulator,
  opts: { allowWrites?: boolean; kindLookups?: number } & Partial<InProcessOptions> = {},
): Promise<RunResult> {
  const { allowWrites, kindLookups, ...rest } = opts;
  const settings = embeddedTarget(sim);
  return runInProcess(
    api,
    { ...settings, allowWrites: allowWrites ?? true, ...(kindLookups !== undefined ? { kindLookups } : {}) },
    { maxInvites: settings.maxInvites, settleMs: 1000, ...rest },
  );
}

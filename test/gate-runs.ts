import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContractSummary } from '../src/report/summary.ts';
import type { Reading } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { NO_TARGET_ENV, runCli, writeTargetFlags } from './helpers.ts';

// Gate runs through the CLI, for the test files that judge its verdicts (gate, gate-verdicts, legal-readings,
// at-users-providers, money-preflight), against the embedded simulator or one playing another reading.

const tmp = mkdtempSync(join(tmpdir(), 'h2h-contract-'));
let runs = 0;

/** `h2h contract` with its own reports folder and no target from the environment: exit code, console, summary. */
export async function contractRun(args: string[], env: NodeJS.ProcessEnv = {}) {
  const reports = join(tmp, `run-${++runs}`);
  const r = await runCli(['contract', '--reports-dir', reports, ...args], {
    env: { ...NO_TARGET_ENV, ...env },
    timeoutMs: 240_000,
  });
  let summary: ContractSummary | undefined;
  try {
    summary = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
  } catch {
    summary = undefined;
  }
  return { ...r, reports, summary, console: r.stdout + r.stderr };
}

/** `h2h contract --allow-writes` against a simulator as a real target. */
export function gateAgainst(sim: Simulator, extra: string[] = []) {
  return contractRun([...writeTargetFlags(sim), ...extra]);
}

/** A simulator playing `reading` (and one fault), stopped whatever `fn` does. */
export async function withSim<T>(
  reading: Reading,
  fn: (sim: Simulator) => Promise<T>,
  fault?: 'invite-hang',
): Promise<T> {
  const sim = await startSimulator({ reading, ...(fault ? { fault: { name: fault } } : {}) });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

/** In-process runs mostly wait on timers and sockets: three at once keep one core busy (CONCURRENCY overrides). */
export const CONCURRENCY = Number(process.env.H2H_TEST_CONCURRENCY ?? 3);

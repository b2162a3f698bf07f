// One gate run against the simulator as a mutant leaves it, in this process (scripts/mutant-gate.ts runs it for
// StrykerJS): a fresh simulator, discovery, then the planned scenarios chosen, on the driver
// runInProcess and the Playwright suite share (src/run/drive.ts), marking which scenario is running and choosing
// the scenarios once discovery's data is known.

import type { ApiModel } from '../src/openapi/load.ts';
import { type Plan, type PlannedScenario, runsAfterWrites } from '../src/plan/plan.ts';
import type { ScenarioResult } from '../src/report/scenario-result.ts';
import { driveGroup, type Turn } from '../src/run/drive.ts';
import { runDeps } from '../src/run/run-deps.ts';
import { defaultValue } from '../src/shared/settings.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { localPace } from '../src/target/pace.ts';
import { httpSend, type RawSend, type SendPolicy } from '../src/target/send-policy.ts';
import { discover, type TargetData } from '../src/target/target.ts';
import { newRunId, trxFactory } from '../src/target/trx-ids.ts';

/**
 * The parts of a run outside any one scenario, named as StrykerJS's tests are: the simulator's start and close
 * (every scenario runs on what it started), and discovery, first and again after the run's own invites (every
 * scenario's data comes from it).
 */
export const START = '(h2h) the simulator starts and closes';
export const DISCOVERY = '(h2h) discovery';

/** Where a run stands, for the dry run's coverage: the scenario running, or a part outside them. */
export type Mark = (id: string | undefined) => void;

export interface GateRun {
  results: ScenarioResult[];
  /** What discovery found. */
  data: TargetData;
}

/** A run's simulator, and why the run was stopped from outside (the simulator threw): nothing is sent after. */
export interface Control {
  sim?: Simulator;
  stopped?: string;
}

export interface RunOptions {
  /** Called once the simulator has started, before anything is sent to it. */
  started?: (sim: Simulator) => void;
  /** The scenarios to run, in plan order, chosen once discovery's data is known. */
  choose: (data: TargetData) => readonly PlannedScenario[];
  stopAtFinding: boolean;
  mark: Mark;
  ctl: Control;
}

/** The gate's settings for a mutant: those the command runner's whole-gate runs had (the same seed, settle). */
const SETTLE_MS = 1000;
const SEED = 1;
/**
 * Per request: the simulator in this process answers in milliseconds, so a mutant that leaves a request without
 * an answer is seen in 3 s rather than the gate's 10 (the scenario is inconclusive either way).
 */
const TIMEOUT_MS = 3000;

/** One run against a fresh simulator, in this process. */
export async function runPlan(api: ApiModel, plan: Plan, opts: RunOptions): Promise<GateRun> {
  const { ctl, mark } = opts;
  mark(START);
  const sim = await startSimulator({ api });
  ctl.sim = sim;
  opts.started?.(sim);
  try {
    const target = embeddedTarget(sim);
    const sent = httpSend(target.baseUrl, { timeoutMs: TIMEOUT_MS });
    const raw: RawSend = (...a) => (ctl.stopped ? Promise.reject(new Error(ctl.stopped)) : sent(...a));
    const pace = localPace({});
    const maxWaitMs = defaultValue('max-wait');
    const policy: SendPolicy = { maxWaitMs, pace };
    mark(DISCOVERY);
    const data = await discover(raw, policy, target);
    const deps = runDeps(api, target, data, raw, trxFactory(newRunId(), 'P'), {
      maxInvites: target.maxInvites,
      maxWaitMs,
      pace,
      settleMs: SETTLE_MS,
      seed: SEED,
      examples: defaultValue('examples'),
    });
    const out: GateRun = { results: [], data };
    const chosen = opts.choose(data);
    // As runInProcess, on the one driver: what waits for the run's own invites runs after them, on history read
    // again.
    const later = chosen.filter((e) => runsAfterWrites(e, data, plan));
    const stop = (): boolean =>
      ctl.stopped !== undefined || (opts.stopAtFinding && out.results.some((r) => r.findings.length > 0));
    const take = async (turn: Turn): Promise<void> => {
      mark(turn.entry.scenario.title);
      out.results.push('skipped' in turn ? turn.skipped : await turn.run());
    };
    await driveGroup(
      chosen.filter((e) => !later.includes(e)),
      deps,
      { lanes: 1, take, stop },
    );
    if (stop()) return out;
    const rediscover = (): Promise<TargetData> => {
      mark(DISCOVERY);
      return discover(raw, policy, target, data);
    };
    await driveGroup(later, deps, { lanes: 1, take, stop, rediscover });
    return out;
  } finally {
    mark(START);
    await sim.close();
    mark(undefined);
  }
}

/**
 * The simulator's state as it started, as text: what the start of a run leaves for every scenario to meet. A
 * transaction's time of visibility is only whether it is visible yet (the clock moves between two starts);
 * functions count by their text (a mutant's function is another one); the API model is left out (no mutant's).
 */
export function startState(sim: Simulator): string {
  const now = performance.now();
  return JSON.stringify(sim.state, (key, value: unknown) => {
    if (key === 'api') return undefined;
    if (key === 'visibleAt') return typeof value === 'number' && value <= now ? 'visible' : `later: ${String(value)}`;
    if (value instanceof Map) return { map: [...value] };
    if (value instanceof Set) return { set: [...value] };
    if (value instanceof Promise) return 'a promise';
    if (typeof value === 'function') return String(value);
    return value;
  });
}

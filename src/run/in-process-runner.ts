import type { TlsOptions } from '../client/client.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Exchange, Finding } from '../openapi/types.js';
import { buildCatalogue } from '../plan/catalogue/index.js';
import { planRun, runsAfterWrites } from '../plan/plan.js';
import type { Scenario } from '../plan/scenario.js';
import type { ScenarioResult } from '../report/scenario-result.js';
import { defaultValue } from '../shared/settings.js';
import { localPace } from '../target/pace.js';
import { httpSend, type RawSend, type SendPolicy } from '../target/send-policy.js';
import { discover, type GateTarget } from '../target/target.js';
import { newRunId, newSeed, trxFactory } from '../target/trx-ids.js';
import type { Deviation } from './config.js';
import { driveGroup, type Turn } from './drive.js';
import { runDeps } from './run-deps.js';

export interface InProcessOptions {
  maxInvites: number;
  grep?: string;
  canonicalOnly?: boolean;
  /** A further filter (tests). */
  filter?: (s: Scenario) => boolean;
  settleMs?: number;
  rateLimit?: number;
  maxWaitMs?: number;
  timeoutMs?: number;
  /** @defaultValue the table's (--body-cap) */
  bodyCap?: number;
  tls?: TlsOptions;
  deviations?: Deviation[];
  strict?: boolean;
  knownStatuses?: string[];
  /** @defaultValue a new random seed */
  seed?: number;
  /** @defaultValue the table's (--examples) */
  examples?: number;
  /** Where failing generated cases are saved; not saved when absent. */
  failuresDir?: string;
  /** Stop after the first scenario with a finding (the simulator's mutation testing needs no more). */
  stopAtFinding?: boolean;
  /**
   * Every answer the run gets, with the order its request went out in and when (ms since the run began): the
   * fidelity measurement replays them against a mock (bench/fidelity.ts).
   */
  record?: (ex: Exchange, sent: { seq: number; atMs: number }) => void;
}

export interface RunResult {
  results: ScenarioResult[];
  ran: ScenarioResult[];
  skipped: ScenarioResult[];
  findings: Finding[];
  drift: Drift[];
  failedClauses: Set<ClauseId>;
}

/**
 * Every planned scenario, run in this process over node:http and judged by the shared checks, with no
 * Playwright: the reference of the gate benchmark, and how the toolkit's own tests drive a simulator. Same
 * planner, same executor, same records as the Playwright suite.
 */
export async function runInProcess(
  api: ApiModel,
  target: GateTarget & { baseUrl: string },
  opts: InProcessOptions,
): Promise<RunResult> {
  const sent = httpSend(target.baseUrl, opts);
  const { record } = opts;
  const began = performance.now();
  let seq = 0;
  const raw: RawSend = record
    ? async (endpoint, method, params, how) => {
        const at = { seq: seq++, atMs: performance.now() - began };
        const ex = await sent(endpoint, method, params, how);
        record(ex, at);
        return ex;
      }
    : sent;
  const pace = localPace({ rate: opts.rateLimit });
  const maxWaitMs = opts.maxWaitMs ?? defaultValue('max-wait');
  const policy: SendPolicy = { maxWaitMs, pace };
  const data = await discover(raw, policy, target);
  const plan = planRun(buildCatalogue(api), {
    allowWrites: target.allowWrites,
    maxInvites: opts.maxInvites,
    canonicalOnly: opts.canonicalOnly ?? false,
    ...(opts.grep ? { grep: opts.grep } : {}),
  });
  const deps = runDeps(api, target, data, raw, trxFactory(newRunId(), 'P', target.trxRule), {
    maxInvites: opts.maxInvites,
    maxWaitMs,
    pace,
    settleMs: opts.settleMs ?? defaultValue('settle'),
    deviations: opts.deviations ?? [],
    strict: opts.strict ?? false,
    ...(opts.knownStatuses ? { knownStatuses: opts.knownStatuses } : {}),
    seed: opts.seed ?? newSeed(),
    examples: opts.examples ?? defaultValue('examples'),
    ...(opts.failuresDir ? { failuresDir: opts.failuresDir } : {}),
  });
  const out: RunResult = { results: [], ran: [], skipped: [], findings: [], drift: [], failedClauses: new Set() };
  const chosen = plan.entries.filter((e) => !opts.filter || opts.filter(e.scenario));
  // As in the Playwright suite: what waits for the run's own invites runs after them, on history read again.
  const later = chosen.filter((e) => runsAfterWrites(e, data, plan));
  const first = chosen.filter((e) => !later.includes(e));
  const stop = (): boolean => opts.stopAtFinding === true && out.findings.length > 0;
  const take = async (turn: Turn): Promise<void> => {
    const r = 'skipped' in turn ? turn.skipped : await turn.run();
    out.results.push(r);
    (r.status === 'skipped' || r.status === 'inconclusive' ? out.skipped : out.ran).push(r);
    out.findings.push(...r.findings);
    out.drift.push(...r.drift);
    for (const f of r.findings) out.failedClauses.add(f.clause);
  };
  // One lane: the scenarios run one after another in plan order, so a run's results are the same every time.
  await driveGroup(first, deps, { lanes: 1, take, stop });
  if (stop()) return out;
  await driveGroup(later, deps, { lanes: 1, take, stop, rediscover: () => discover(raw, policy, target, data) });
  return out;
}

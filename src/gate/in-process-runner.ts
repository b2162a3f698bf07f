import { callApi } from '../client/client.js';
import { TransportError } from '../client/transport.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Finding } from '../openapi/types.js';
import { buildCatalogue } from './catalogue/index.js';
import type { Deviation } from './config.js';
import { dataSkip, planRun, runsAfterWrites } from './plan.js';
import { runDeps, throttleOf } from './run-deps.js';
import { executeScenario } from './run-scenario.js';
import type { Scenario } from './scenario.js';
import { type ScenarioResult, skippedResult } from './scenario-result.js';
import { type RawSend, type SendPolicy, sendUnderPolicy } from './send-policy.js';
import { discoveredData, discoveryParams, type GateTarget, type TargetData } from './target.js';
import { newRunId, newSeed, trxFactory } from './trx-ids.js';

/** A RawSend over the toolkit's own client (node:http): for preflight, discovery, tests and benchmarks. */
export function httpSend(baseUrl: string, timeoutMs = 10_000): RawSend {
  return async (endpoint, method, params) => {
    const r = await callApi({ baseUrl, endpoint, method, params, timeoutMs });
    if (r.error || !r.exchange) throw new TransportError(r.error?.message ?? 'no answer', r.error?.reason ?? 'connect');
    return r.exchange;
  };
}

/**
 * Reads the target's history (an explicit limit), for data taken from its own records: by GET, and by POST when
 * GET is not answered with ok true (a target may refuse one method; ENV-2 judges that, discovery goes on).
 */
export async function discover(raw: RawSend, policy: SendPolicy, target: GateTarget): Promise<TargetData> {
  const read = (method: 'GET' | 'POST') =>
    sendUnderPolicy(raw, 'history-transaksi', method, discoveryParams(target.apiKey), policy, {
      flaky: [],
      waits: [],
    });
  let ex = await read('GET');
  if ((ex.body as { ok?: unknown } | undefined)?.ok !== true) {
    const post = await read('POST');
    if ((post.body as { ok?: unknown } | undefined)?.ok === true) ex = post;
  }
  return discoveredData(ex, target.knownTrxId, target.msisdns);
}

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
  deviations?: Deviation[];
  strict?: boolean;
  knownStatuses?: string[];
  /** @defaultValue a new random seed */
  seed?: number;
  /** @defaultValue 25 */
  examples?: number;
  /** Where failing generated cases are saved; not saved when absent. */
  failuresDir?: string;
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
  const raw = httpSend(target.baseUrl, opts.timeoutMs);
  const throttle = throttleOf(opts.rateLimit);
  const policy: SendPolicy = { maxWaitMs: opts.maxWaitMs ?? 30_000, ...(throttle ? { throttle } : {}) };
  const data = await discover(raw, policy, target);
  const plan = planRun(buildCatalogue(api), {
    allowWrites: target.allowWrites,
    maxInvites: opts.maxInvites,
    canonicalOnly: opts.canonicalOnly ?? false,
    ...(opts.grep ? { grep: opts.grep } : {}),
  });
  const deps = runDeps(api, target, data, raw, trxFactory(newRunId()), {
    maxInvites: opts.maxInvites,
    maxWaitMs: opts.maxWaitMs ?? 30_000,
    ...(throttle ? { throttle } : {}),
    settleMs: opts.settleMs ?? 5000,
    deviations: opts.deviations ?? [],
    strict: opts.strict ?? false,
    ...(opts.knownStatuses ? { knownStatuses: opts.knownStatuses } : {}),
    seed: opts.seed ?? newSeed(),
    examples: opts.examples ?? 25,
    ...(opts.failuresDir ? { failuresDir: opts.failuresDir } : {}),
  });
  const out: RunResult = { results: [], ran: [], skipped: [], findings: [], drift: [], failedClauses: new Set() };
  const chosen = plan.entries.filter((e) => !opts.filter || opts.filter(e.scenario));
  // As in the Playwright suite: what waits for the run's own invites runs after them, on history read again.
  const later = chosen.filter((e) => runsAfterWrites(e, data, plan));
  for (const [entries, after] of [
    [chosen.filter((e) => !later.includes(e)), false],
    [later, true],
  ] as const) {
    if (after && entries.length) deps.data = await discover(raw, policy, target);
    for (const entry of entries) {
      const notRun = dataSkip(entry, deps.data, after);
      const r = notRun ? skippedResult(entry, notRun.reason, notRun.status) : await executeScenario(entry, deps);
      out.results.push(r);
      (r.status === 'skipped' || r.status === 'inconclusive' ? out.skipped : out.ran).push(r);
      out.findings.push(...r.findings);
      out.drift.push(...r.drift);
      for (const f of r.findings) out.failedClauses.add(f.clause);
    }
  }
  return out;
}

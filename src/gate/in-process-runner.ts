import { callApi } from '../client/client.js';
import { TransportError } from '../client/transport.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Finding } from '../openapi/types.js';
import { TokenBucket } from '../shared/token-bucket.js';
import { buildCatalogue } from './catalogue/index.js';
import type { Deviation } from './config.js';
import { InviteLedger } from './invite-ledger.js';
import { dataSkip, planRun } from './plan.js';
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

/** Reads the target's history once (an explicit limit), for data taken from its own records. */
export async function discover(raw: RawSend, policy: SendPolicy, target: GateTarget): Promise<TargetData> {
  const ex = await sendUnderPolicy(raw, 'history-transaksi', 'GET', discoveryParams(target.apiKey), policy, {
    flaky: [],
    waits: [],
  });
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
  const policy: SendPolicy = {
    maxWaitMs: opts.maxWaitMs ?? 30_000,
    ...(opts.rateLimit ? { throttle: new TokenBucket(opts.rateLimit, 1) } : {}),
  };
  const data = await discover(raw, policy, target);
  const plan = planRun(buildCatalogue(api), {
    allowWrites: target.allowWrites,
    maxInvites: opts.maxInvites,
    canonicalOnly: opts.canonicalOnly ?? false,
    ...(opts.grep ? { grep: opts.grep } : {}),
  });
  const deps = {
    api,
    target,
    data,
    raw,
    policy,
    ledger: new InviteLedger(opts.maxInvites),
    newTrxId: trxFactory(newRunId()),
    settleMs: opts.settleMs ?? 5000,
    deviations: opts.deviations ?? [],
    strict: opts.strict ?? false,
    ...(opts.knownStatuses ? { knownStatuses: opts.knownStatuses } : {}),
    generation: { seed: opts.seed ?? newSeed(), examples: opts.examples ?? 25 },
    ...(opts.failuresDir ? { failures: { dir: opts.failuresDir, baseUrl: target.baseUrl } } : {}),
  };
  const out: RunResult = { results: [], ran: [], skipped: [], findings: [], drift: [], failedClauses: new Set() };
  for (const entry of plan.entries) {
    if (opts.filter && !opts.filter(entry.scenario)) continue;
    const reason = dataSkip(entry, data);
    const r = reason ? skippedResult(entry, reason) : await executeScenario(entry, deps);
    out.results.push(r);
    (r.status === 'skipped' ? out.skipped : out.ran).push(r);
    out.findings.push(...r.findings);
    out.drift.push(...r.drift);
    for (const f of r.findings) out.failedClauses.add(f.clause);
  }
  return out;
}

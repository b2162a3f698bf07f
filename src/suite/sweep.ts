import type { Simulator } from '../simulator/server.js';
import type { Spec } from '../spec/load.js';
import type { ClauseId, Drift, Finding } from '../spec/types.js';
import { runScenario } from './run.js';
import { buildScenarios, planWrites, runContext, type Scenario } from './scenarios.js';
import { discover, type Target } from './target.js';

/** What the embedded simulator offers a run: its demo account and the fixture's product, kind, numbers and cap. */
export function simulatorSettings(sim: Simulator): Omit<Target, 'send'> & { baseUrl: string; maxInvites: number } {
  const s = sim.fixture.suite;
  return {
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    allowWrites: true,
    product: s.product,
    kind: s.kind,
    msisdns: s.msisdns,
    maxInvites: s.max_invites,
  };
}

export interface SweepResult {
  ran: Scenario[];
  skipped: { scenario: Scenario; reason: string }[];
  findings: Finding[];
  drift: Drift[];
  failedClauses: Set<ClauseId>;
}

/**
 * Every scenario of the suite, run in this process over the given target and judged by the shared checks, with
 * no Playwright: the reference run of the gate benchmark, and how the toolkit's own tests drive a simulator.
 */
export async function sweep(
  spec: Spec,
  target: Target,
  opts: { maxInvites: number; filter?: (s: Scenario) => boolean },
): Promise<SweepResult> {
  const data = await discover(target);
  const ctx = runContext(target, data);
  const scenarios = buildScenarios(spec, { allowWrites: target.allowWrites }).filter(opts.filter ?? (() => true));
  const plan = planWrites(scenarios, opts.maxInvites);
  const out: SweepResult = { ran: [], skipped: [], findings: [], drift: [], failedClauses: new Set() };
  for (const sc of scenarios) {
    const reason = sc.skip?.(data) ?? (plan.over.has(sc.title) ? 'over the invite cap' : undefined);
    if (reason) {
      out.skipped.push({ scenario: sc, reason });
      continue;
    }
    out.ran.push(sc);
    const o = await runScenario(spec, sc, ctx);
    out.findings.push(...o.findings);
    out.drift.push(...o.drift);
    for (const f of o.findings) out.failedClauses.add(f.clause);
  }
  return out;
}

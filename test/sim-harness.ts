import type { Simulator } from '../src/simulator/server.ts';
import { loadSpec } from '../src/spec/load.ts';
import type { ClauseId, Drift, Finding } from '../src/spec/types.ts';
import { httpTarget, runScenario } from '../src/suite/run.ts';
import { buildScenarios, planWrites, runContext, type Scenario } from '../src/suite/scenarios.ts';
import { discover } from '../src/suite/target.ts';

export const spec = loadSpec();

export interface SweepResult {
  ran: Scenario[];
  skipped: { scenario: Scenario; reason: string }[];
  findings: Finding[];
  drift: Drift[];
  failedClauses: Set<ClauseId>;
}

/** Runs every scenario of the catalog against a simulator over real HTTP, judged by the shared checks. */
export async function sweep(
  sim: Simulator,
  opts: { allowWrites?: boolean; filter?: (s: Scenario) => boolean } = {},
): Promise<SweepResult> {
  const allowWrites = opts.allowWrites ?? true;
  const s = sim.fixture.suite;
  const target = httpTarget({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    allowWrites,
    product: s.product,
    kind: s.kind,
    msisdns: s.msisdns,
  });
  const data = await discover(target);
  const ctx = runContext(target, data);
  const scenarios = buildScenarios(spec, { allowWrites }).filter(opts.filter ?? (() => true));
  const plan = planWrites(scenarios, s.max_invites);
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

import { expect, test as base } from '@playwright/test';
import { loadSpec } from '../src/spec/load.ts';
import { registerSecret } from '../src/redact.ts';
import { configFromEnv } from '../src/suite/config.ts';
import { playwrightTarget } from '../src/suite/playwright-target.ts';
import { executeScenario } from '../src/suite/execute.ts';
import { type Area, buildScenarios, planWrites, runContext, type Scenario, trxFactory } from '../src/suite/scenarios.ts';
import type { TargetData } from '../src/suite/target.ts';

const spec = loadSpec();
const cfg = configFromEnv();
registerSecret(cfg.apiKey);
const data = JSON.parse(process.env.H2H_TARGET_DATA ?? '{"seen":0}') as TargetData;
const all = buildScenarios(spec, { allowWrites: cfg.allowWrites });
const over = planWrites(all, cfg.maxInvites).over;
// One counter per worker process: the run id from the global setup plus the worker's own index.
let newTrxId: (() => string) | undefined;

/** The scenarios of one area, with static annotations naming their clauses, endpoint, methods and aliases. */
export function scenariosFor(area: Area): { scenario: Scenario; annotation: { type: string; description: string }[] }[] {
  return all
    .filter((s) => s.area === area)
    .map((scenario) => ({
      scenario,
      annotation: [
        ...scenario.clauses.map((c) => ({ type: 'clause', description: c })),
        { type: 'endpoint', description: scenario.endpoint },
        { type: 'methods', description: scenario.methods.join(',') },
        ...(scenario.aliases.length ? [{ type: 'aliases', description: scenario.aliases.join(',') }] : []),
      ],
    }));
}

interface H2H {
  /** Runs a scenario: skips it with its reason, or judges it with the shared checks and fails on findings. */
  run(scenario: Scenario): Promise<void>;
}

export const test = base.extend<{ h2h: H2H }>({
  h2h: async ({ request }, use, testInfo) => {
    const flaky: string[] = [];
    const target = playwrightTarget(request, cfg, (note) => flaky.push(note));
    newTrxId ??= trxFactory(`${process.env.H2H_RUN_ID ?? 'H2H'}W${testInfo.workerIndex}`);
    const ctx = runContext(target, data, newTrxId);
    await use({
      run: async (scenario) => {
        const reason = scenario.skip?.(data) ?? (over.has(scenario.title) ? `over the invite cap (--max-invites ${cfg.maxInvites})` : undefined);
        test.skip(reason !== undefined, reason);
        const verdict = await executeScenario(spec, scenario, ctx, cfg, flaky);
        await testInfo.attach('h2h-result', { body: JSON.stringify(verdict.record), contentType: 'application/json' });
        if (verdict.failed) {
          await testInfo.attach('exchanges', { body: JSON.stringify(verdict.record.exchanges, null, 2), contentType: 'application/json' });
        }
        expect(verdict.failures, verdict.message).toEqual([]);
      },
    });
  },
});

export { expect };

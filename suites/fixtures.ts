import { test as base, expect } from '@playwright/test';
import { registerSecret } from '../src/redact.ts';
import { loadSpec } from '../src/spec/load.ts';
import { configFromEnv } from '../src/suite/config.ts';
import { executeScenario, skippedRecord } from '../src/suite/execute.ts';
import { playwrightTarget } from '../src/suite/playwright-target.ts';
import {
  type Area,
  buildScenarios,
  isPlainOpenApi,
  planWrites,
  runContext,
  type Scenario,
  trxFactory,
} from '../src/suite/scenarios.ts';
import type { TargetData } from '../src/suite/target.ts';

const spec = loadSpec();
const cfg = configFromEnv();
registerSecret(cfg.apiKey);
const data = JSON.parse(process.env.H2H_TARGET_DATA ?? '{"seen":0}') as TargetData;
const all = buildScenarios(spec, { allowWrites: cfg.allowWrites }).filter(
  (s) => !cfg.canonicalOnly || isPlainOpenApi(s),
);
const over = planWrites(all, cfg.maxInvites).over;
// One counter per worker process: the run id from the global setup plus the worker's own index.
let newTrxId: (() => string) | undefined;

export interface Group {
  title: string;
  annotation: { type: string; description: string }[];
  scenarios: Scenario[];
}

/**
 * The tests of one area: one per endpoint and method, each scenario a step. Few tests keep a broken target's
 * run short (Playwright starts a new worker after every failed test); every scenario still reports itself.
 */
export function groupsFor(area: Area): Group[] {
  const groups = new Map<string, Scenario[]>();
  for (const s of all.filter((x) => x.area === area)) {
    const key = `${s.endpoint} ${s.methods.join('+')}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups].map(([key, scenarios]) => {
    const clauses = [...new Set(scenarios.flatMap((s) => s.clauses))];
    return {
      title: `${key}: ${clauses.join(' ')}`,
      scenarios,
      annotation: [
        ...clauses.map((c) => ({ type: 'clause', description: c })),
        { type: 'endpoint', description: scenarios[0]?.endpoint ?? '' },
        { type: 'methods', description: scenarios[0]?.methods.join(',') ?? '' },
      ],
    };
  });
}

interface H2H {
  /** Runs each scenario as a step, judged by the shared checks; the test fails if any scenario found a violation. */
  run(scenarios: Scenario[]): Promise<void>;
}

export const test = base.extend<{ h2h: H2H }>({
  h2h: async ({ request }, use, testInfo) => {
    const flaky: string[] = [];
    const target = playwrightTarget(request, cfg, (note) => flaky.push(note));
    newTrxId ??= trxFactory(`${process.env.H2H_RUN_ID ?? 'H2H'}W${testInfo.workerIndex}`);
    const ctx = runContext(target, data, newTrxId);
    await use({
      run: async (scenarios) => {
        const skipped: string[] = [];
        for (const scenario of scenarios) {
          const reason =
            scenario.skip?.(data) ??
            (over.has(scenario.title) ? `over the invite cap (--max-invites ${cfg.maxInvites})` : undefined);
          if (reason !== undefined) {
            skipped.push(`${scenario.title}: ${reason}`);
            await testInfo.attach('h2h-result', {
              body: JSON.stringify(skippedRecord(scenario, reason)),
              contentType: 'application/json',
            });
            continue;
          }
          await test.step(scenario.title, async () => {
            flaky.length = 0; // transport retries of this scenario only
            const verdict = await executeScenario(spec, scenario, ctx, cfg);
            verdict.record.flaky = [...flaky];
            await testInfo.attach('h2h-result', {
              body: JSON.stringify(verdict.record),
              contentType: 'application/json',
            });
            if (verdict.failed) {
              await testInfo.attach(`exchanges: ${scenario.title}`, {
                body: JSON.stringify(verdict.record.exchanges, null, 2),
                contentType: 'application/json',
              });
            }
            expect.soft(verdict.failures, verdict.message).toEqual([]);
          });
        }
        for (const s of skipped) testInfo.annotations.push({ type: 'skipped scenario', description: s });
        test.skip(skipped.length === scenarios.length, skipped.join('; '));
      },
    });
  },
});

export { expect };

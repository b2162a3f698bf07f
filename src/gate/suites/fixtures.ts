import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { loadApiModel } from '../../openapi/load.js';
import { registerPhone, registerSecret } from '../../redact.js';
import { TokenBucket } from '../../shared/token-bucket.js';
import { buildCatalogue } from '../catalogue/index.js';
import { configFromEnv } from '../config.js';
import { nearMissKeys } from '../generated/cases.js';
import { type EffectiveConfig, readRunFile } from '../handover.js';
import { httpSend } from '../in-process-runner.js';
import { InviteLedger } from '../invite-ledger.js';
import { dataSkip, type PlannedScenario, planRun } from '../plan.js';
import { executeScenario, type RunDeps } from '../run-scenario.js';
import type { Area } from '../scenario.js';
import { skippedResult } from '../scenario-result.js';
import { trxFactory } from '../trx-ids.js';
import { WORKERS } from '../workers.js';

const api = loadApiModel();
// Playwright loads this file after the global setup, in its own process and in every worker: all of them plan
// from the run file it wrote (the effective config), so the tests are the same everywhere.
const run = readRunFile();
const cfg: EffectiveConfig = run?.config ?? { ...configFromEnv(), baseUrl: '', maxInvites: 0, seed: 0 };
const apiKey = process.env.H2H_API_KEY ?? '';
registerSecret(apiKey);
for (const m of cfg.msisdns) registerPhone(m);
for (const k of nearMissKeys(apiKey)) registerSecret(k.value);
const plan = planRun(buildCatalogue(api), cfg);
// The gate's pace is shared by the workers: each takes its part.
const throttle = cfg.rateLimit ? new TokenBucket(cfg.rateLimit / WORKERS, 1) : undefined;
let newTrxId: (() => string) | undefined;

export interface Group {
  title: string;
  entries: PlannedScenario[];
  annotation: { type: string; description: string }[];
}

/** The longest a scenario may take: every request at its timeout (a read once more) and its waits, plus settling. */
function budgetMs(entry: PlannedScenario): number {
  const s = entry.scenario;
  return s.requests * (2 * cfg.timeoutMs + cfg.maxWaitMs) + (s.settles ? 2 * cfg.settleMs : 0) + 1000;
}

/** The phase of an invite scenario: refusals run first, while the whole budget is there. */
function phase(entry: PlannedScenario): string {
  const use = entry.scenario.invite;
  if (!use) return '';
  return use.writes === 0 ? 'refusals ' : entry.form === 'safe' ? 'safe ' : 'writes ';
}

/**
 * The tests of one area: one per endpoint and method (and, for invites, phase), each scenario a step. Few tests
 * keep a broken target's run short (Playwright starts a new worker after every failed test); every scenario
 * still reports itself, and the reporter writes one JUnit test case per scenario.
 */
export function groupsFor(area: Area): Group[] {
  const groups = new Map<string, PlannedScenario[]>();
  for (const e of plan.entries.filter((x) => x.scenario.area === area)) {
    const key = `${phase(e)}${e.scenario.endpoint} ${e.scenario.methods.join('+')}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return [...groups].map(([key, entries]) => ({
    title: `${key}: ${[...new Set(entries.flatMap((e) => e.scenario.clauses))].join(' ')}`,
    entries,
    // The reporter reads the planned scenarios from here, so a scenario that never reported is never lost.
    annotation: entries.map((e) => ({
      type: 'scenario',
      description: JSON.stringify(skippedResult(e, 'did not report')),
    })),
  }));
}

interface H2H {
  /** Runs each scenario as a step, judged by the shared checks; the test fails if any scenario failed. */
  run(group: Group): Promise<void>;
}

export const test = base.extend<{ h2h: H2H }>({
  // Requests go through the toolkit's own client (src/client), as in the probe and the in-process runner: one
  // timing, one transport vocabulary, and no request URL (a GET's holds the key) in Playwright's report steps.
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  h2h: async ({}, use, testInfo) => {
    if (!run)
      throw new Error('no run file: the gate runs through its global setup (h2h contract, or npx playwright test)');
    newTrxId ??= trxFactory(`${run.runId}W${testInfo.workerIndex}`);
    const deps: RunDeps = {
      api,
      target: { ...cfg, apiKey },
      data: run.data,
      raw: httpSend(cfg.baseUrl, cfg.timeoutMs),
      policy: { maxWaitMs: cfg.maxWaitMs, ...(throttle ? { throttle } : {}) },
      ledger: new InviteLedger(cfg.maxInvites, run.ledgerFile),
      newTrxId,
      settleMs: cfg.settleMs,
      deviations: cfg.deviations,
      strict: cfg.strict,
      ...(cfg.knownStatuses ? { knownStatuses: cfg.knownStatuses } : {}),
      ...(cfg.knownHttpStatuses ? { knownHttpStatuses: cfg.knownHttpStatuses } : {}),
      generation: { seed: cfg.seed, examples: cfg.examples },
      failures: { dir: join(cfg.reportsDir, 'failures'), baseUrl: cfg.baseUrl },
    };
    await use({
      run: async (group) => {
        testInfo.setTimeout(group.entries.reduce((sum, e) => sum + budgetMs(e), 0));
        let skipped = 0;
        for (const entry of group.entries) {
          const reason = dataSkip(entry, deps.data);
          if (reason !== undefined) {
            skipped++;
            await testInfo.attach('h2h-result', {
              body: JSON.stringify(skippedResult(entry, reason)),
              contentType: 'application/json',
            });
            continue;
          }
          await test.step(entry.scenario.title, async () => {
            const result = await executeScenario(entry, deps);
            if (result.status === 'skipped') skipped++;
            await testInfo.attach('h2h-result', { body: JSON.stringify(result), contentType: 'application/json' });
            if (result.status === 'failed') {
              await testInfo.attach(`exchanges: ${entry.scenario.title}`, {
                body: JSON.stringify(result.exchanges, null, 2),
                contentType: 'application/json',
              });
            }
            expect
              .soft(result.lines, `${entry.scenario.title}\n${result.lines.map((l) => `  ${l}`).join('\n')}`)
              .toEqual([]);
          });
        }
        test.skip(skipped === group.entries.length, 'every scenario of this test was skipped (see the summary)');
      },
    });
  },
});

export { expect };

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _baseTest as base, expect, type TestInfo } from '@playwright/test';
import { loadApiModel } from '../src/openapi/load.js';
import { buildCatalogue } from '../src/plan/catalogue/index.js';
import { nearMissKeys } from '../src/plan/generators/cases.js';
import { type PlannedScenario, planRun, runsAfterWrites } from '../src/plan/plan.js';
import type { Area } from '../src/plan/scenario.js';
import { registerPhone, registerSecret } from '../src/redact.js';
import { DID_NOT_REPORT, skippedResult } from '../src/report/scenario-result.js';
import { configFromEnv } from '../src/run/config.js';
import { driveGroup, type Turn } from '../src/run/drive.js';
import { type EffectiveConfig, handedKey, readRunFile } from '../src/run/handover.js';
import { runDeps } from '../src/run/run-deps.js';
import { concurrencyOf } from '../src/run/workers.js';
import { paceClient } from '../src/target/pace.js';
import { httpSend } from '../src/target/send-policy.js';
import type { TargetData } from '../src/target/target.js';
import { discover } from '../src/target/target.js';
import { trxFactory } from '../src/target/trx-ids.js';

// The test runner's own test type (`_baseTest`, exported and typed by @playwright/test), not `test`: the gate opens
// no browser, and `test` adds browser fixtures that run in every test all the same (trace recording, context
// configuration: each a step with a stack captured, and the worker loading Playwright's client library). In a
// profile of an embedded run a worker's busy time fell from 4.5 to 5.5 CPU-seconds to 3.7 to 4.0.
const api = loadApiModel();
// Playwright loads this file after the global setup, in its own process and in every worker: all of them plan
// from the run file it wrote (the effective config), so the tests are the same everywhere.
const run = readRunFile();
const cfg: EffectiveConfig = run?.config ?? { ...configFromEnv(), baseUrl: '', maxInvites: 0, seed: 0 };
// The key the global setup resolved, however it was given (handover.ts); none outside a run (`--list`).
const apiKey = run ? handedKey() : '';
registerSecret(apiKey);
for (const m of cfg.msisdns) registerPhone(m);
for (const k of nearMissKeys(apiKey)) registerSecret(k.value);
const plan = planRun(buildCatalogue(api), cfg);
// Every request of every worker takes its turn at the run's one pace, served by the global setup (pace.ts); against
// the embedded simulator, unless the run bounds or rates it, each worker's lanes hold its own (sharedPace).
const pace = run?.pacePort !== undefined ? paceClient(run.pacePort) : undefined;
let newTrxId: (() => string) | undefined;
/** The target's history read again after the run's own invites (once, by the invites' worker). */
let rediscovered: Promise<TargetData> | undefined;

export interface Group {
  title: string;
  entries: PlannedScenario[];
  annotation: { type: string; description: string }[];
  /** Its scenarios wait for the run's own invites, and run on the history read again after them. */
  afterWrites?: true;
  /** None of its scenarios writes: they may run side by side, as many as the run's concurrency. */
  parallel?: true;
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
 * Whether a planned scenario sends invites that a conformant API carries out. Those run one at a time, in plan
 * order; everything else (reads, refusals, safe forms) charges nothing of a conformant API and reads nothing
 * another writes, and the ledger admits each invite before it goes, so it may run side by side.
 */
const writes = (e: PlannedScenario): boolean => e.form === 'write' && (e.scenario.invite?.writes ?? 0) > 0;

/** Whether a planned scenario waits for the run's own invites (plan.ts, runsAfterWrites). */
const waits = (e: PlannedScenario): boolean => run !== undefined && runsAfterWrites(e, run.data, plan);

function group(key: string, entries: PlannedScenario[], afterWrites: boolean): Group {
  return {
    title: `${key}: ${[...new Set(entries.flatMap((e) => e.scenario.clauses))].join(' ')}`,
    entries,
    // The reporter reads the planned scenarios from here, so a scenario that never reported is never lost.
    annotation: entries.map((e) => ({
      type: 'scenario',
      description: JSON.stringify(skippedResult(e, DID_NOT_REPORT)),
    })),
    ...(afterWrites ? { afterWrites: true as const } : {}),
    ...(entries.every((e) => !writes(e)) ? { parallel: true as const } : {}),
  };
}

/**
 * The tests of one area: one per endpoint and method (and, for invites, phase), each scenario a step. Few tests
 * keep a broken target's run short (Playwright starts a new worker after every failed test); every scenario
 * still reports itself, and the reporter writes one JUnit test case per scenario. The invite area ends with the
 * scenarios of every area that wait for the run's own invites (they run in its worker, after them).
 */
export function groupsFor(area: Area): Group[] {
  const groups = new Map<string, PlannedScenario[]>();
  for (const e of plan.entries.filter((x) => x.scenario.area === area && !waits(x))) {
    const key = `${phase(e)}${e.scenario.endpoint} ${e.scenario.methods.join('+')}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const later = new Map<string, PlannedScenario[]>();
  if (area === 'invite')
    for (const e of plan.entries.filter(waits)) {
      const key = `after writes ${e.scenario.area} ${e.scenario.endpoint} ${e.scenario.methods.join('+')}`;
      later.set(key, [...(later.get(key) ?? []), e]);
    }
  // In plan order (refusals, safe forms, writes). Within a phase, the reads' tests with the fewest scenarios first:
  // they cannot spread over lanes, so they run while the others still fill the slots, and the run does not end
  // on one scenario sending its requests one after another. The invites' tests run one after another in one
  // worker, beside the reads: there the test whose scenario sends the most goes first, and in every test that
  // runs side by side the scenario that sends the most starts first, so the longest chain of batches (a
  // coverage of msisdn sends hundreds of guarded invites four at a time) runs while the reads still fill the
  // other slots, not alone at the end.
  const phases = ['', 'refusals ', 'safe ', 'writes '];
  const rank = (g: Group): number => phases.indexOf(phase(g.entries[0] as PlannedScenario));
  const size = (g: Group): number =>
    !g.parallel ? 0 : area === 'invite' ? -Math.max(...g.entries.map(most)) : g.entries.length;
  return [
    ...[...groups]
      .map(([key, entries]) => group(key, longestFirst(entries), false))
      .sort((a, b) => rank(a) - rank(b) || size(a) - size(b)),
    ...[...later].map(([key, entries]) => group(key, entries, true)),
  ];
}

/** The most requests a planned scenario sends (its catalogue bound). */
const most = (e: PlannedScenario): number => e.scenario.requests;

/**
 * A group's scenarios, those that send the most first when they run side by side (longest first: the lanes end
 * together); in plan order when they run one after another (they write, in the order the plan chose).
 */
function longestFirst(entries: PlannedScenario[]): PlannedScenario[] {
  if (entries.some(writes)) return entries;
  return [...entries].sort((a, b) => most(b) - most(a));
}

/** Where every scenario's step says it is: this file (the scenario's own title says which it is). */
const STEP_LOCATION = { file: fileURLToPath(import.meta.url), line: 1, column: 1 };

/**
 * One planned scenario's turn in a test (the driver's, drive.ts): skipped, its record attached; else run as a step,
 * judged by the shared checks, its result (and, failed, its exchanges) attached for the reporter. Whether it judged:
 * false when it was skipped or inconclusive.
 */
async function judged(turn: Turn, testInfo: TestInfo): Promise<boolean> {
  const { entry } = turn;
  if ('skipped' in turn) {
    await testInfo.attach('h2h-result', { body: JSON.stringify(turn.skipped), contentType: 'application/json' });
    return false;
  }
  return base.step(
    entry.scenario.title,
    async (step) => {
      const result = await turn.run();
      await step.attach('h2h-result', { body: JSON.stringify(result), contentType: 'application/json' });
      if (result.status === 'failed') {
        await step.attach(`exchanges: ${entry.scenario.title}`, {
          body: JSON.stringify(result.exchanges, null, 2),
          contentType: 'application/json',
        });
      }
      // Only a failing scenario asserts: each assertion is a step whose stack Playwright captures, and a run has
      // hundreds of passing scenarios.
      if (result.lines.length)
        expect
          .soft(result.lines, `${entry.scenario.title}\n${result.lines.map((l) => `  ${l}`).join('\n')}`)
          .toEqual([]);
      return result.status !== 'skipped' && result.status !== 'inconclusive';
    },
    // A step given its location captures no stack, and an attachment made on the step is not a step of its own:
    // both were among a worker's largest costs in a profile (hundreds of scenarios a run).
    { location: STEP_LOCATION },
  );
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
    newTrxId ??= trxFactory(run.runId, testInfo.workerIndex.toString(36).padStart(2, '0'), cfg.trxRule);
    const target = { ...cfg, apiKey };
    const raw = httpSend(cfg.baseUrl, cfg);
    const deps = runDeps(api, target, run.data, raw, newTrxId, {
      ...cfg,
      ledgerFile: run.ledgerFile,
      ...(pace ? { pace } : {}),
      failuresDir: join(cfg.reportsDir, 'failures'),
    });
    await use({
      run: async (group) => {
        testInfo.setTimeout(group.entries.reduce((sum, e) => sum + budgetMs(e), 0) + 2 * cfg.timeoutMs);
        let skipped = 0;
        // Side by side where nothing writes: the run's pace holds the requests in flight to --concurrency. A
        // failure (a bug of the gate) ends the test once the scenarios already under way have settled.
        await driveGroup(group.entries, deps, {
          lanes: group.parallel ? concurrencyOf(cfg) : 1,
          ...(group.afterWrites
            ? { rediscover: () => (rediscovered ??= discover(raw, deps.policy, target, run.data)) }
            : {}),
          take: async (turn) => {
            if (!(await judged(turn, testInfo))) skipped++;
          },
        });
        test.skip(skipped === group.entries.length, 'no scenario of this test could judge (see the summary)');
      },
    });
  },
});

export { expect };

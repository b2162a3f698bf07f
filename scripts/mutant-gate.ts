// StrykerJS's test runner for the simulator's mutation testing (`npm run mutation`), the part that runs the gate:
// scripts/stryker-gate-runner.mjs imports this file from Stryker's sandbox, so that the simulator it starts is the
// instrumented one. One process keeps the API model, the catalogue and the plan warm; every run starts a fresh
// simulator (its state is a run's own) and runs planned scenarios in process (scripts/mutant-run.ts). A test is
// one planned scenario, by its title, and two more stand for what runs outside them: the simulator's start and
// discovery (START, DISCOVERY). The dry run runs the whole plan and says which tests reach which mutant's code; a
// mutant then faces the scenarios that reach it, stopping at its first violated clause (the scenario is
// StrykerJS's killing test, the clause begins its failure message: scripts/mutation-report.ts lists the kills by
// clause for review). What a mutant can change beyond the scenarios that reach it widens the choice (chosen()):
// - reached at the simulator's start: every scenario, unless the state it started with is the reference run's to
//   the letter (mutants of the state's files: state.ts and its parts; of another file, every scenario);
// - reached in discovery: every scenario, unless the data it discovered is the reference run's to the letter;
// - reached by a scenario that invites: the scenarios that read the run's own invites back as well (they run last,
//   on what the invites wrote).
// Every kill of the whole plan's judgement in the first measured run (the command runner's, whole gate per mutant)
// fell to a scenario these rules choose (docs/benchmarks.md). H2H_MUTATION_WHOLE=1 runs every mutant against the
// whole plan, to compare.
import type { Logger } from '@stryker-mutator/api/logging';
import {
  type DryRunResult,
  DryRunStatus,
  determineHitLimitReached,
  type MutantRunOptions,
  type MutantRunResult,
  MutantRunStatus,
  type TestResult,
  TestStatus,
} from '@stryker-mutator/api/test-runner';
import { loadApiModel } from '../src/openapi/load.ts';
import { buildCatalogue } from '../src/plan/catalogue/index.ts';
import { type Plan, type PlannedScenario, planRun } from '../src/plan/plan.ts';
import type { ScenarioResult } from '../src/report/scenario-result.ts';
import { loadFixture } from '../src/simulator/fixtures.ts';
import {
  type Control,
  DISCOVERY,
  type GateRun,
  type Mark,
  type RunOptions,
  runPlan,
  START,
  startState,
} from './mutant-run.ts';

type Hits = Record<string, number>;
/** What StrykerJS's instrumented code reads and writes (its `__stryker__` global). */
interface Instrumented {
  activeMutant?: string;
  currentTestId?: string;
  mutantCoverage?: { static: Hits; perTest: Record<string, Hits> };
  hitCount?: number;
  hitLimit?: number;
}

const failure = (r: ScenarioResult): string | undefined => {
  const f = r.findings[0];
  return f && `${f.clause} ${f.endpoint} ${f.method ?? ''} ${f.path}: ${f.message}`;
};

const WHOLE = process.env.H2H_MUTATION_WHOLE === '1';
/** The longest a stopped run is given to end what it had in flight. */
const WIND_DOWN_MS = 5000;
/** The files whose code run at the simulator's start leaves nothing but the state startState() shows. */
const STATE_FILES = ['state', 'books', 'accounts', 'history', 'lookups', 'invites'].map((f) => `src/simulator/${f}.ts`);

/** What a run with no mutant active finds: the state the simulator starts with, and discovery's data. */
interface Reference {
  start: string;
  data: string;
}

/** The test runner proper: scripts/stryker-gate-runner.mjs hands it StrykerJS's calls. */
export class GateRunner {
  private readonly api = loadApiModel();
  private readonly plan: Plan;
  private readonly ns: Instrumented;
  /** Scenarios that invite, and those that read the run's own invites back. */
  private readonly invites = new Set<string>();
  private readonly readers = new Set<string>();
  /** The reference run's start and data (the dry run's, or this process's first need of them). */
  private reference?: Reference;
  /** An error nothing caught, between runs (a run's leftover): said, and let be. */
  private readonly unheard = (why: string): void => this.log.warn(`h2h gate: uncaught between runs: ${why}`);
  /** Called when the simulator throws where nothing catches it (its answer never comes). */
  private threw: (why: string) => void = this.unheard;

  constructor(private readonly log: Logger) {
    const g = globalThis as { __stryker__?: Instrumented };
    g.__stryker__ ??= {};
    this.ns = g.__stryker__;
    this.plan = planRun(buildCatalogue(this.api), {
      allowWrites: true,
      maxInvites: loadFixture().suite.max_invites,
      canonicalOnly: false,
    });
    for (const { scenario: s } of this.plan.entries) {
      if (s.endpoint === 'invite-member') this.invites.add(s.title);
      if (s.afterWrites) this.readers.add(s.title);
    }
    // The simulator's own errors that nothing catches (a mutant's throw in a request's event, a promise rejected
    // unheard): the run they happen in gets no answer, and is stopped (guarded()); the process lives on.
    const uncaught = (err: unknown): void => this.threw(String((err as Error)?.message ?? err));
    process.on('unhandledRejection', uncaught);
    process.on('uncaughtException', uncaught);
  }

  /** The whole plan, with the coverage of each scenario and of the simulator's start and discovery. */
  async dryRun(perTest: boolean): Promise<DryRunResult> {
    const times = new Map<string, number>();
    let began = performance.now();
    let current: string | undefined;
    const mark: Mark = (id) => {
      if (current !== undefined) times.set(current, (times.get(current) ?? 0) + performance.now() - began);
      began = performance.now();
      current = id;
      if (perTest) this.ns.currentTestId = id;
    };
    let start = '';
    const ran = await this.guarded(
      { started: (sim) => (start = startState(sim)), choose: () => this.plan.entries },
      false,
      mark,
    );
    if ('broke' in ran) return { status: DryRunStatus.Error, errorMessage: ran.broke };
    this.reference = { start, data: JSON.stringify(ran.run.data) };
    const time = (id: string): number => Math.round(times.get(id) ?? 0);
    const tests: TestResult[] = [START, DISCOVERY].map((id) => ({
      id,
      name: id,
      timeSpentMs: time(id),
      status: TestStatus.Success,
    }));
    for (const r of ran.run.results) {
      const base = { id: r.title, name: r.title, timeSpentMs: time(r.title) };
      const broke = failure(r);
      if (broke) tests.push({ ...base, status: TestStatus.Failed, failureMessage: broke });
      else tests.push({ ...base, status: r.status === 'passed' ? TestStatus.Success : TestStatus.Skipped });
    }
    this.log.info(
      `h2h gate dry run: ${ran.run.results.length} scenarios, ${this.invites.size} of them invite, ${this.readers.size} read the invites back`,
    );
    const cov = this.ns.mutantCoverage;
    if (!perTest || !cov) return { status: DryRunStatus.Complete, tests };
    return { status: DryRunStatus.Complete, tests, mutantCoverage: cov };
  }

  /** A mutant against the scenarios that reach it (all when StrykerJS names none), stopping at the first finding. */
  async mutantRun(o: MutantRunOptions): Promise<MutantRunResult> {
    const filter = WHOLE ? undefined : o.testFilter;
    if (filter?.includes(DISCOVERY) || filter?.includes(START)) this.reference ??= await this.referenceRun();
    this.ns.activeMutant = o.activeMutant.id;
    this.ns.hitLimit = o.hitLimit;
    this.ns.hitCount = o.hitLimit === undefined ? undefined : 0;
    const began = performance.now();
    let why = '';
    let start = '';
    const atStart = filter?.includes(START) ?? false;
    const run: Omit<RunOptions, 'ctl' | 'mark' | 'stopAtFinding'> = {
      ...(atStart ? { started: (sim) => (start = startState(sim)) } : {}),
      choose: (data) => {
        const file = o.activeMutant.fileName.replaceAll('\\', '/');
        const stateFile = STATE_FILES.some((f) => file.endsWith(f));
        const c = this.chosen(filter, { data: JSON.stringify(data), start: atStart && stateFile ? start : '' });
        why = c.why;
        return c.entries;
      },
    };
    try {
      const ran = await this.guarded(run, true, () => {});
      const { fileName, location, mutatorName } = o.activeMutant;
      this.log.debug(
        `mutant ${o.activeMutant.id} ${fileName}:${location.start.line + 1} ${mutatorName}: ${why}; ${'broke' in ran ? ran.broke : `${ran.run.results.length} ran`}, ${Math.round(performance.now() - began)} ms`,
      );
      const timeout = determineHitLimitReached(this.ns.hitCount, this.ns.hitLimit);
      if (timeout) return { status: MutantRunStatus.Timeout, ...(timeout.reason ? { reason: timeout.reason } : {}) };
      const duration = Math.round(performance.now() - began);
      // The run broke, or the simulator threw where nothing catches it (the request got no answer: the command
      // runner's process died of it). The gate does not pass such a provider either (exit 3 or 4), so the mutant
      // is killed, its cause said in place of a clause.
      if ('broke' in ran)
        return { status: MutantRunStatus.Killed, killedBy: [], failureMessage: ran.broke, nrOfTests: 0, duration };
      const nrOfTests = ran.run.results.length;
      const killer = ran.run.results.find((r) => r.findings.length);
      if (!killer) return { status: MutantRunStatus.Survived, nrOfTests, duration };
      const failureMessage = failure(killer) ?? '';
      return { status: MutantRunStatus.Killed, killedBy: [killer.title], failureMessage, nrOfTests, duration };
    } finally {
      this.ns.activeMutant = undefined;
    }
  }

  /** The start and discovery of a run with no mutant active (no scenario). */
  private async referenceRun(): Promise<Reference> {
    let start = '';
    const ran = await this.guarded({ started: (sim) => (start = startState(sim)), choose: () => [] }, false, () => {});
    if ('broke' in ran) throw new Error(`the reference run: ${ran.broke}`);
    return { start, data: JSON.stringify(ran.run.data) };
  }

  /**
   * A run that ends at once when the simulator throws where nothing catches it: its simulator is closed and the
   * run, left to end by itself, sends nothing more.
   */
  private async guarded(
    run: Omit<RunOptions, 'ctl' | 'mark' | 'stopAtFinding'>,
    stopAtFinding: boolean,
    mark: Mark,
  ): Promise<{ run: GateRun } | { broke: string }> {
    const ctl: Control = {};
    const threw = new Promise<string>((resolve) => {
      this.threw = (why) => {
        ctl.stopped ??= why;
        void ctl.sim?.close().catch(() => {});
        resolve(why);
      };
    });
    const running = runPlan(this.api, this.plan, { ...run, stopAtFinding, mark, ctl }).then(
      (run) => ({ run }),
      (err: unknown) => ({ broke: `the run broke: ${(err as Error).message}` }),
    );
    try {
      const ended = await Promise.race([
        running,
        threw.then((why) => ({ broke: `(no answer) the simulator threw: ${why}` })),
      ]);
      // Stopped: what the run still had in flight ends now, its mutant still active and its errors still this
      // run's (a request's event left over would throw in the next run, under another mutant).
      if (ctl.stopped) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, WIND_DOWN_MS))]);
      return ended;
    } finally {
      this.threw = this.unheard;
    }
  }

  /**
   * The scenarios a mutant faces, in plan order (the rules above), and why, for the log. `now`: what its run's
   * discovery found, and the state its simulator started with ('' when not compared).
   */
  private chosen(filter: readonly string[] | undefined, now: Reference): { entries: PlannedScenario[]; why: string } {
    const all = (why: string) => ({ entries: this.plan.entries, why: `all scenarios: ${why}` });
    if (!filter) return all('StrykerJS names no test');
    if (filter.includes(START) && (!now.start || now.start !== this.reference?.start))
      return all(now.start ? 'its simulator started in another state' : 'the simulator start reaches it');
    if (filter.includes(DISCOVERY) && now.data !== this.reference?.data) return all('its discovery found other data');
    const own = new Set(filter.filter((t) => t !== START && t !== DISCOVERY));
    const invites = [...own].some((t) => this.invites.has(t));
    const entries = this.plan.entries.filter(
      (e) => own.has(e.scenario.title) || (invites && this.readers.has(e.scenario.title)),
    );
    return { entries, why: `${entries.length} scenarios (${own.size} reach it)` };
  }
}

// StrykerJS's command for the simulator's mutation testing (`npm run mutation`, stryker.config.json): one gate run,
// in process, against the reference simulator as the mutant left it. Exit 1 at the first violated clause (the mutant
// is killed), 0 when the contract holds (it survived), 3 when the run itself broke. What killed it (the clause, the
// scenario, the finding) goes to $H2H_MUTATION_KILLS/<mutant>.json, for the review of killed mutants
// (scripts/mutation-report.ts): a kill is right only if the answer really breaks the clause named.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiModel } from '../src/openapi/load.ts';
import { runInProcess } from '../src/run/in-process-runner.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import { startSimulator } from '../src/simulator/server.ts';

const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
const dir = process.env.H2H_MUTATION_KILLS;
/** StrykerJS's instrumented code records which mutants' code ran (the command runner does not read it: we do). */
const stryker = (
  globalThis as { __stryker__?: { mutantCoverage?: { static: object; perTest: Record<string, object> } } }
).__stryker__;
const COVERAGE = dir ? join(dir, 'coverage.json') : undefined;
// A mutant whose code the reference run never reached changes no answer the gate sees: it is marked as not reached
// (scripts/mutation-report.ts lists those apart, for review) without a run of its own.
if (mutant && COVERAGE && existsSync(COVERAGE)) {
  const reached = new Set(JSON.parse(readFileSync(COVERAGE, 'utf8')) as string[]);
  if (!reached.has(mutant)) {
    mkdirSync(join(dir as string, 'unreached'), { recursive: true });
    writeFileSync(join(dir as string, 'unreached', mutant), '');
    process.exit(0);
  }
}
const sim = await startSimulator();
try {
  const run = await runInProcess(loadApiModel(), embeddedTarget(sim), {
    maxInvites: sim.fixture.suite.max_invites,
    settleMs: 1000,
    seed: 1,
    stopAtFinding: true,
  });
  const first = run.findings[0];
  if (!mutant && COVERAGE && stryker?.mutantCoverage) {
    const cov = stryker.mutantCoverage;
    const ids = new Set([...Object.keys(cov.static), ...Object.values(cov.perTest).flatMap((c) => Object.keys(c))]);
    writeFileSync(COVERAGE, `${JSON.stringify([...ids])}\n`);
  }
  if (first && mutant && dir) {
    mkdirSync(dir, { recursive: true });
    const scenario = run.ran.find((r) => r.findings.length)?.title;
    writeFileSync(
      join(dir, `${mutant}.json`),
      `${JSON.stringify({ mutant, clause: first.clause, scenario, finding: first }, null, 1)}\n`,
    );
  }
  // A survivor is marked too: a run cut short by time still says which mutants lived (StrykerJS reports at the end).
  if (!first && mutant && dir) {
    mkdirSync(join(dir, 'survived'), { recursive: true });
    writeFileSync(join(dir, 'survived', mutant), '');
  }
  process.exitCode = first ? 1 : 0;
} catch (err) {
  console.error(`mutant ${mutant ?? '(none)'}: ${(err as Error).message}`);
  process.exitCode = 3;
} finally {
  await sim.close();
}

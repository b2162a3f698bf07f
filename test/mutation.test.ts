import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ContractSummary } from '../src/report/summary.ts';
import type { Fault } from '../src/simulator/faults/index.ts';
import { NO_TARGET_ENV, runCli, violated } from './helpers.ts';
import { AT_BOUNDARIES, CONCURRENCY, FAULTS, namesExactly, own, SHARED } from './mutation-runs.ts';

// The mutation self-test: every fault of the simulator's catalogue makes the gate name exactly the clause it
// breaks, and no other. Most runs go in this process (the same planner, executor and summary as h2h contract); one
// goes through the CLI and Playwright. The faults at a boundary run in mutation-shared and mutation-boundaries.

// Every fault runs with another client inviting on the same account, beside the reference: those at a boundary in
// mutation-shared.test.ts (and far from the reference in mutation-boundaries.test.ts), the others here.
describe('mutation self-test, another client inviting on the same account: each fault fails the gate on its own clauses and no other', {
  concurrency: CONCURRENCY,
}, () => {
  for (const fault of FAULTS.filter((f) => !AT_BOUNDARIES.includes(f)))
    it(`${fault.name} -> violated: ${own(fault).join(' ')}`, () => namesExactly(fault, SHARED));
});

// Through the CLI once: what it adds to the runs above is Playwright, the reporter and the exit code, the same for
// every fault (each fault's exact clause set over the whole plan is held above, in process). The scenarios of its
// clause: a failed test costs Playwright a new worker, and the other scenarios would add nothing here.
describe('mutation self-test through the CLI (Playwright, the reporter, exit codes)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'h2h-mutation-'));
  for (const name of ['lookup-upper-case'] as const) {
    it(`h2h contract --simulator-fault ${name} exits 1; contract-summary.json names exactly its clause`, async () => {
      const fault = FAULTS.find((f) => f.name === name) as Fault;
      const reports = join(tmp, name);
      const args = ['--simulator-fault', name, '--settle', '1s', '--grep', own(fault).join('|')];
      const r = await runCli(['contract', '--reports-dir', reports, ...args], {
        env: NO_TARGET_ENV,
        timeoutMs: 180_000,
      });
      assert.equal(r.code, 1, (r.stdout + r.stderr).slice(-2000));
      const summary = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
      assert.deepEqual(violated(summary), own(fault));
      const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
      assert.match(junit, new RegExp(`<failure [^>]*type="${own(fault)[0]}`), 'JUnit names the clause of the finding');
    });
  }
});

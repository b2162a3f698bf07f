import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ContractSummary } from '../src/gate/summary.ts';
import { CLAUSE_IDS } from '../src/openapi/types.ts';
import {
  BOUNDARY_FAULTS,
  CONTRACT_FAULTS,
  type Fault,
  GENERATED_FAULTS,
  INDEPENDENT_FAULTS,
  ROLE_FAULTS,
} from '../src/simulator/faults.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { gateInProcess, NO_TARGET_ENV, runCli, violated } from './helpers.ts';

// The mutation self-test: every fault of the simulator's catalogue makes the gate name exactly the clause it
// breaks (and those its own words say the same breach breaks too, `also`), and no other. Most runs go in this
// process (the same planner, executor and summary as h2h contract); a few go through the CLI and Playwright.

const FAULTS: readonly Fault[] = [
  ...CONTRACT_FAULTS,
  ...GENERATED_FAULTS,
  ...BOUNDARY_FAULTS,
  ...ROLE_FAULTS,
  ...INDEPENDENT_FAULTS,
];
const own = (f: Fault): string[] =>
  CLAUSE_IDS.filter((id) => id === f.clause || (f.also as readonly string[] | undefined)?.includes(id));

/**
 * A reading that differs from the reference on most knobs, the new ones included (the lag short of settle), with
 * another client of the same account inviting every second: the boundary faults run under it.
 */
const OTHER =
  'slot=random,order=shuffled,default-limit=10,max-limit=50,refusal-http=200,refusal-words=lower,message=present,member-form=08,extra=everywhere,content-type=params,post-body=json,saldo=big,lag=200ms,conflict=alias,content-coding=gzip,neighbour=1s';
/** The reference reading with another client of the same account inviting every second: the other faults. */
const SHARED = 'neighbour=1s';
/** The faults at an input boundary, a record's kind or a parameter's role: run under OTHER. */
const AT_BOUNDARIES: readonly Fault[] = [...GENERATED_FAULTS, ...BOUNDARY_FAULTS, ...ROLE_FAULTS];

/** In-process runs mostly wait on timers and sockets: three at once keep one core busy (CONCURRENCY overrides). */
const CONCURRENCY = Number(process.env.H2H_TEST_CONCURRENCY ?? 3);

/** The gate run in process against the simulator with one fault, under a reading: exactly the fault's clauses. */
async function namesExactly(fault: Fault, reading: string, settleMs?: number): Promise<void> {
  const sim = await startSimulator({ fault: { name: fault.name } as never, reading: parseReading(reading) });
  let summary: ContractSummary;
  try {
    summary = (await gateInProcess(sim, settleMs ? { settleMs } : {})).summary;
  } finally {
    await sim.close();
  }
  assert.deepEqual(violated(summary), own(fault), `${fault.description}`);
  assert.equal(summary.result, 'violated');
  for (const id of own(fault))
    assert.ok(summary.clauses.find((c) => c.id === id)?.failures[0]?.endpoint, `${id} names where it broke`);
}

// Every fault runs once with another client inviting on the same account: those at a boundary under a reading far
// from the reference too, the others beside the reference.
describe('mutation self-test, another client inviting on the same account: each fault fails the gate on its own clauses and no other', {
  concurrency: CONCURRENCY,
}, () => {
  for (const fault of FAULTS.filter((f) => !AT_BOUNDARIES.includes(f)))
    it(`${fault.name} -> violated: ${own(fault).join(' ')}`, () => namesExactly(fault, SHARED));
});

describe('mutation self-test against a reading far from the reference, another client inviting: each fault at an input boundary still fails exactly its clauses', {
  concurrency: CONCURRENCY,
}, () => {
  for (const fault of AT_BOUNDARIES)
    it(`${fault.name} -> violated: ${own(fault).join(' ')}`, () => namesExactly(fault, OTHER, 1500));
});

describe('mutation self-test through the CLI (Playwright, the reporter, exit codes)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'h2h-mutation-'));
  for (const name of ['envelope-no-status', 'msisdn-07-via-alias', 'lookup-upper-case'] as const) {
    it(`h2h contract --simulator-fault ${name} exits 1; contract-summary.json names exactly its clause`, async () => {
      const fault = FAULTS.find((f) => f.name === name) as Fault;
      const reports = join(tmp, name);
      const r = await runCli(['contract', '--reports-dir', reports, '--simulator-fault', name, '--settle', '1s'], {
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

import assert from 'node:assert/strict';
import { CLAUSE_IDS } from '../src/openapi/types.ts';
import { oneBalanceRise } from '../src/report/outcome-rules.ts';
import type { ContractSummary } from '../src/report/summary.ts';
import {
  BOUNDARY_FAULTS,
  CLAUSE_FAULTS,
  type Fault,
  GENERATED_FAULTS,
  ROLE_FAULTS,
} from '../src/simulator/faults/index.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { gateInProcess, violated } from './helpers.ts';

// The mutation self-test's runs (mutation.test.ts, mutation-shared.test.ts, mutation-boundaries.test.ts): every
// fault of the simulator's catalogue makes the gate name exactly the clause it breaks (and those its own words say
// the same breach breaks too, `also`), and no other.

export const FAULTS: readonly Fault[] = CLAUSE_FAULTS;
export const own = (f: Fault): string[] =>
  CLAUSE_IDS.filter((id) => id === f.clause || (f.also as readonly string[] | undefined)?.includes(id));

/**
 * A reading that differs from the reference on most knobs, the new ones included (the lag short of settle): the
 * boundary faults run under it too. Without another client: with one, a fault's own answers can make GET and POST
 * differ by more than the other client explains (limit-equal-drops-last named ENV-2 and ENV-3 in one CI run), and
 * credit-via-code's one credit is a rise a top-up could explain (BAL-2 rightly inconclusive).
 */
export const OTHER =
  'slot=random,order=shuffled,default-limit=10,max-limit=50,refusal-http=200,refusal-words=lower,message=present,member-form=08,extra=everywhere,content-type=params,post-body=json,saldo=big,lag=200ms,conflict=alias,content-coding=gzip';
/** The reference reading with another client of the same account inviting every second: every fault runs under it. */
export const SHARED = 'neighbour=1s';
/** The faults at an input boundary, a record's kind or a parameter's role: they run under OTHER as well. */
export const AT_BOUNDARIES: readonly Fault[] = [...GENERATED_FAULTS, ...BOUNDARY_FAULTS, ...ROLE_FAULTS];

/** In-process runs mostly wait on timers and sockets: three at once keep one core busy (CONCURRENCY overrides). */
export const CONCURRENCY = Number(process.env.H2H_TEST_CONCURRENCY ?? 3);

/** The gate run in process against the simulator with one fault, under a reading: exactly the fault's clauses. */
export async function namesExactly(fault: Fault, reading: string, settleMs?: number): Promise<void> {
  const sim = await startSimulator({ fault: { name: fault.name } as never, reading: parseReading(reading) });
  let summary: ContractSummary;
  try {
    summary = (await gateInProcess(sim, settleMs ? { settleMs } : {})).summary;
  } finally {
    await sim.close();
  }
  // With another client inviting, the balance moves between any two reads: when only one rise around one invite was
  // judged (the others' windows held the other client's work), BAL-2 is rightly inconclusive (outcome-rules.ts).
  const bal2 = summary.clauses.find((c) => c.id === 'BAL-2');
  const oneRise =
    reading.includes('neighbour') &&
    own(fault).includes('BAL-2') &&
    bal2?.status === 'inconclusive' &&
    oneBalanceRise(bal2) !== undefined;
  const expected = oneRise ? own(fault).filter((id) => id !== 'BAL-2') : own(fault);
  assert.deepEqual(violated(summary), expected, `${fault.description}`);
  assert.equal(summary.result, expected.length ? 'violated' : 'inconclusive');
  for (const id of expected)
    assert.ok(summary.clauses.find((c) => c.id === id)?.failures[0]?.endpoint, `${id} names where it broke`);
}

import { describe, it } from 'node:test';
import { AT_BOUNDARIES, CONCURRENCY, namesExactly, own, SHARED } from './mutation-runs.ts';

// The mutation self-test's faults at an input boundary, a record's kind or a parameter's role, beside the reference
// reading with another client inviting on the same account (mutation-runs.ts).

describe('mutation self-test, another client inviting on the same account: each fault at an input boundary fails the gate on its own clauses and no other', {
  concurrency: CONCURRENCY,
}, () => {
  for (const fault of AT_BOUNDARIES)
    it(`${fault.name} -> violated: ${own(fault).join(' ')}`, () => namesExactly(fault, SHARED));
});

import { describe, it } from 'node:test';
import { AT_BOUNDARIES, CONCURRENCY, namesExactly, OTHER, own } from './mutation-runs.ts';

// The mutation self-test's faults at an input boundary, a record's kind or a parameter's role, under a reading far
// from the reference (mutation-runs.ts); beside the reference with another client in mutation-shared.test.ts.

describe('mutation self-test against a reading far from the reference: each fault at an input boundary still fails exactly its clauses', {
  concurrency: CONCURRENCY,
}, () => {
  for (const fault of AT_BOUNDARIES)
    it(`${fault.name} -> violated: ${own(fault).join(' ')}`, () => namesExactly(fault, OTHER, 1500));
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReading } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { CONCURRENCY } from './gate-runs.ts';
import { gateInProcess, violated } from './helpers.ts';

// Where its users run it: a provider with a rate limit, rules for transaction IDs, an account shared with another
// client.

describe('where its users run it: a provider with a rate limit, rules for IDs, a shared account', {
  concurrency: CONCURRENCY,
}, () => {
  it('a token bucket of 8 requests a second: a read-only run judges every clause, learns the rate, and is rarely limited', async () => {
    const sim = await startSimulator({ reading: parseReading('rate-limit=8/s') });
    try {
      const started = performance.now();
      const { summary } = await gateInProcess(sim, { maxWaitMs: 60_000 }, undefined, { allowWrites: false });
      const seconds = (performance.now() - started) / 1000;
      assert.deepEqual(violated(summary), []);
      // Read-only: the invite clauses are the user's to leave; every other clause is judged and holds.
      for (const c of summary.clauses)
        assert.ok(c.status === 'held' || c.status === 'not-judged', `${c.id} ${c.status}: ${c.causes.join('; ')}`);
      const api = sim.log.filter((e) => e.path.startsWith('/api/'));
      const start = api[0]?.arrivedMs ?? 0;
      const late = api.filter((e) => (e.arrivedMs ?? 0) - start > 10_000);
      const limitedLate = late.filter((e) => e.httpStatus === 429).length;
      assert.ok(limitedLate < late.length / 100, `${limitedLate} of ${late.length} answered 429 after the first 10 s`);
      const answered = api.filter((e) => e.httpStatus !== 429).length;
      // A pace that learned the rate keeps near it (1.11x to 1.13x on a quiet machine, 2026-11-29); one stuck below
      // it (half the rate: 2x) fails. The margin is for a loaded machine (1.2x under load 15 in a CI try).
      assert.ok(seconds < (1.35 * answered) / 8, `${seconds.toFixed(1)} s for ${answered} answers at 8/s`);
      assert.equal(summary.reading.find((p) => p.knob === 'rate-limit')?.value, '8/s');
    } finally {
      await sim.close();
    }
  });

  it('a provider that refuses trx_ids over 20 characters: a run with writes judges INV-1..6', async () => {
    const sim = await startSimulator({ reading: parseReading('trx-id=alnum20') });
    try {
      const { summary } = await gateInProcess(sim);
      assert.deepEqual(violated(summary), []);
      for (const id of ['INV-1', 'INV-2', 'INV-3', 'INV-4', 'INV-5', 'INV-6'])
        assert.equal(summary.clauses.find((c) => c.id === id)?.status, 'held', id);
      // Refused: only the boundary cases' unusual IDs (spaces, other scripts, over 20 characters, other JSON types),
      // never the run's own (text of the rule).
      const refused = sim.log.filter((e) => e.endpoint === 'invite-member' && e.status === 'INVALID_TRX_ID');
      assert.ok(refused.length > 0, 'the boundary cases sent unusual IDs');
      const ordinary = refused.filter((e) => {
        const id = e.params?.trx_id ?? e.params?.trxid;
        return typeof id === 'string' && /^[A-Za-z0-9]{1,20}$/.test(id);
      });
      assert.deepEqual(
        ordinary.map((e) => e.params),
        [],
        'no ID of the run’s own rule was refused',
      );
    } finally {
      await sim.close();
    }
  });

  it('another client inviting on the same account every second: a run with writes violates nothing', async () => {
    const sim = await startSimulator({ reading: parseReading('neighbour=1s') });
    try {
      const { summary } = await gateInProcess(sim);
      assert.deepEqual(violated(summary), []);
      const theirs = sim.state.transactions(sim.fixture.suite.account).filter((t) => t.trxId.startsWith('NB'));
      assert.ok(theirs.length >= 5, `the other client made ${theirs.length} invites during the run`);
    } finally {
      await sim.close();
    }
  });
});

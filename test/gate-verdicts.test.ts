import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coveringReadings } from '../bench/covering.ts';
import { describeReading, invitesCovered, KNOB_NAMES, KNOBS, type Reading } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { CONCURRENCY } from './gate-runs.ts';
import { gateInProcess, violated } from './helpers.ts';

// The gate's verdicts against readings of the API other than the reference simulator's: a covering set of legal
// readings, every one of which passes and is learned (legal-readings, at-users-providers and money-preflight hold
// the rest).

/** What every run shows, whatever the account holds: refusals, the envelope's form, the balance, the conflicts. */
const ALWAYS_SEEN = [
  'refusal-http',
  'refusal-words',
  'message',
  'extra',
  'content-type',
  'content-coding',
  'saldo',
  'conflict',
] as const;

/**
 * A learned value behaves as the played one: a default limit under a maximum is the maximum (`all` clamped at 10
 * is 10), and the lag is learned to 100 ms from reads a loaded machine may answer late (one step either way).
 */
function sameBehaviour(knob: string, value: string, played: Reading): boolean {
  const limit = (v: string): number => (v === 'all' || v === 'none' ? Number.POSITIVE_INFINITY : Number(v));
  if (knob === 'default-limit')
    return (
      Math.min(limit(value), limit(played['max-limit'])) ===
      Math.min(limit(played['default-limit']), limit(played['max-limit']))
    );
  // A balance of N invites sets the saldo itself (N times the price, below 2^31), whatever `saldo` says.
  if (knob === 'saldo' && /^\d+$/.test(played.balance)) return value === 'small' || value === played.saldo;
  if (knob === 'lag') return Math.abs(Number.parseInt(value, 10) - Number.parseInt(played.lag, 10)) <= 100;
  // The rate is measured from what got through before the provider limited the run: within a fifth.
  if (knob === 'rate-limit') {
    const [rate = '', status = '429'] = value.split(':');
    const [want = '', wantStatus = '429'] = played['rate-limit'].split(':');
    return status === wantStatus && Math.abs(Number.parseFloat(rate) / Number.parseFloat(want) - 1) <= 0.2;
  }
  return played[knob as keyof Reading] === value;
}

describe('legal readings: a covering set (every value of every knob, every pair) is never violated', {
  concurrency: CONCURRENCY,
}, () => {
  const paired = KNOB_NAMES.filter((k) => k !== 'rate-limit');
  const readings = coveringReadings(paired);
  it('the covering set holds every value of every knob, and every pair of values of two paired knobs', () => {
    for (const k of KNOB_NAMES)
      for (const v of KNOBS[k].values)
        assert.ok(
          readings.some((r) => r[k] === v),
          `${k}=${v} is in the covering set`,
        );
    for (const [i, a] of paired.entries())
      for (const b of paired.slice(i + 1))
        for (const va of KNOBS[a].values)
          for (const vb of KNOBS[b].values)
            assert.ok(
              readings.some((r) => r[a] === va && r[b] === vb),
              `${a}=${va} with ${b}=${vb} is in the covering set`,
            );
  });
  for (const reading of readings) {
    const name = describeReading(reading);
    it(name, async () => {
      const sim = await startSimulator({ reading });
      try {
        const { summary } = await gateInProcess(sim, { settleMs: 3000 });
        assert.deepEqual(violated(summary), [], name);
        if (invitesCovered(reading) === undefined) {
          // Every clause judged and held, nothing inconclusive, nothing skipped.
          assert.equal(summary.result, 'held', name);
          for (const c of summary.clauses) assert.equal(c.status, 'held', `${name}: ${c.id} ${c.causes.join('; ')}`);
        } else {
          // A balance that covers a few invites: what needs more is inconclusive, because the balance ran out.
          assert.equal(summary.result, 'inconclusive', name);
          for (const c of summary.clauses.filter((x) => x.status === 'inconclusive'))
            for (const why of c.causes) assert.match(why, /the balance ran out after \d+ invite/, `${name}: ${c.id}`);
        }
        // The provider reading, learned (issue 19): the value played on every knob the run could see, and a
        // reason on every knob it could not.
        for (const p of summary.reading) {
          if (p.value === undefined) assert.ok(p.note, `${name}: ${p.knob} not learned, and says why`);
          else assert.ok(sameBehaviour(p.knob, p.value, reading), `${name}: ${p.knob} learned ${p.value}`);
        }
        for (const k of ALWAYS_SEEN)
          assert.ok(summary.reading.find((p) => p.knob === k)?.value !== undefined, `${name}: ${k} is learned`);
      } finally {
        await sim.close();
      }
    });
  }
});

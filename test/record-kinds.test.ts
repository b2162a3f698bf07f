import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exchange } from '../src/openapi/types.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { localPace } from '../src/target/pace.ts';
import { lookupTrait, oneOfEveryTrait, recordsOfEveryKind } from '../src/target/record-kinds.ts';
import { httpSend, type RawSend } from '../src/target/send-policy.ts';
import { discover } from '../src/target/target.ts';

const lookup = (body: unknown, httpStatus = 200): Exchange =>
  ({ endpoint: 'cek-trx-id', method: 'GET', params: {}, httpStatus, body }) as unknown as Exchange;

describe('record kinds', () => {
  it('a lookup tells a kind by its status word, or by the shape that stands in for one', () => {
    assert.equal(
      lookupTrait(lookup({ ok: true, data: { trx_id: 'A', status: 'FAILED' } })),
      'looked up: status FAILED',
    );
    assert.equal(lookupTrait(lookup({ ok: true, data: { trx_id: 'A', status: 0 } })), 'looked up: status number');
    assert.equal(lookupTrait(lookup({ ok: true, data: [{ trx_id: 'A' }] })), 'looked up: data a list');
    assert.equal(lookupTrait(lookup({ ok: false, status: 'TRX_NOT_FOUND' }, 404)), 'looked up: refused TRX_NOT_FOUND');
    assert.equal(lookupTrait(lookup('<html>', 502)), 'looked up: HTTP 502, no JSON object');
  });

  it('a record only a lookup tells apart is a kind of its own', () => {
    const rec = (trx_id: string) => ({ trx_id, manager_number: '6281', member_number: '6282', date: '2026-01-01' });
    const raw = ['T-1', 'T-2', 'T-3'].map(rec);
    const doc = (r: Readonly<Record<string, unknown>>) => r as Record<string, string>;
    assert.deepEqual(
      recordsOfEveryKind(raw, doc, undefined).map((k) => k.record.trx_id),
      ['T-1'],
      'history alone: one kind',
    );
    const looked = {
      'T-1': 'looked up: status SUCCESS',
      'T-2': 'looked up: status SUCCESS',
      'T-3': 'looked up: status FAILED',
    };
    assert.deepEqual(
      recordsOfEveryKind(raw, doc, undefined, looked).map((k) => k.record.trx_id),
      ['T-1', 'T-3'],
    );
  });

  it('one item of every trait, the fewest greedily, at most max', () => {
    const items = [
      ['by GET', 'msisdn as msisdn'],
      ['by POST', 'msisdn as msisdn'],
      ['by GET', 'msisdn as nomor'],
    ];
    assert.deepEqual(
      oneOfEveryTrait(items, (t) => t, 9).map((x) => x.item),
      [items[0], items[1], items[2]],
    );
    assert.equal(oneOfEveryTrait(items, (t) => t, 1).length, 1);
  });
});

describe('discovery looks records up', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({});
  });
  after(() => sim.close());

  /** The simulator's own send, counting lookups. */
  const counted = (): { raw: RawSend; lookups: string[] } => {
    const send = httpSend(sim.url, {});
    const lookups: string[] = [];
    return {
      lookups,
      raw: (endpoint, method, params, how) => {
        if (endpoint === 'cek-trx-id') lookups.push(String(params.trx_id));
        return send(endpoint, method, params, how);
      },
    };
  };
  const policy = { maxWaitMs: 1000, pace: localPace({}) };

  it('within its budget, and learns a status no history answer shows', async () => {
    const all = counted();
    const data = await discover(all.raw, policy, embeddedTarget(sim));
    assert.equal(all.lookups.length, data.records?.length, 'every record seen, under the default budget');
    assert.equal(data.looked?.['TRX-20260630-0016'], 'looked up: status REFUNDED');
    assert.ok(
      data.kinds?.some((k) => k.record.trx_id === 'TRX-20260630-0016'),
      'the REFUNDED record is taken as a kind of its own',
    );
    const few = counted();
    await discover(few.raw, policy, { ...embeddedTarget(sim), kindLookups: 5 });
    assert.equal(few.lookups.length, 5);
    // Again after writes: what the first discovery looked up is not looked up again.
    const again = counted();
    const later = await discover(again.raw, policy, embeddedTarget(sim), data);
    assert.equal(again.lookups.length, 0);
    assert.deepEqual(later.looked, data.looked);
  });
});

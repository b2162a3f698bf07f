import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadApiModel } from '../src/openapi/load.ts';
import type { Exchange } from '../src/openapi/types.ts';
import { RECORD_DATE_EDGES, recordDateEdges } from '../src/plan/catalogue/history.ts';
import { buildCatalogue } from '../src/plan/catalogue/index.ts';
import { dataSkip, planRun } from '../src/plan/plan.ts';
import { ONE_WORKER_PLAN, sharedPace, workersFor } from '../src/run/workers.ts';
import { discoveredData } from '../src/target/target.ts';
import { contractConfigOf } from './helpers.ts';

const catalogue = buildCatalogue(loadApiModel());
const data = {
  seen: 20,
  record: { trx_id: 'T-1', manager_number: '6281', member_number: '6282', date: '2026-01-01' },
  knownTrxId: 'T-1',
};
const runnable = (allowWrites: boolean, maxInvites: number) =>
  planRun(catalogue, { allowWrites, maxInvites, canonicalOnly: false }).entries.filter((e) => !dataSkip(e, data));

describe('the planner', () => {
  it('writes never lower coverage: with the default cap every scenario of a read-only run still runs', () => {
    const readOnly = runnable(false, 10);
    const writes = runnable(true, 10);
    for (const e of readOnly)
      assert.ok(
        writes.some((w) => w.scenario.title === e.scenario.title),
        `${e.scenario.title} runs with writes too`,
      );
    // What the cap keeps out is only what needs writes (no read-only run could test it), and its clauses are
    // still judged by a scenario that runs.
    const out = catalogue.filter((c) => !writes.some((w) => w.scenario === c));
    for (const c of out) {
      assert.equal(c.invite?.safe, false, `${c.title} has no safe form`);
      for (const clause of c.clauses)
        assert.ok(
          writes.some((w) => w.scenario.clauses.includes(clause)),
          `${clause} still runs`,
        );
    }
  });

  it('the writes planned fit the cap with room for their own refusals, most important first', () => {
    for (const cap of [0, 1, 4, 10, 80]) {
      const plan = planRun(catalogue, { allowWrites: true, maxInvites: cap, canonicalOnly: false });
      const writing = plan.entries.filter((e) => !e.skip && e.form === 'write' && (e.scenario.invite?.writes ?? 0) > 0);
      const cost = writing.reduce((a, e) => a + (e.scenario.invite?.writes ?? 0) + (e.scenario.invite?.risk ?? 0), 0);
      assert.ok(cost <= cap, `cap ${cap}: ${cost}`);
      assert.equal(
        plan.writes,
        writing.reduce((a, e) => a + (e.scenario.invite?.writes ?? 0), 0),
      );
    }
    const ten = planRun(catalogue, { allowWrites: true, maxInvites: 10, canonicalOnly: false });
    const written = ten.entries.filter((e) => !e.skip && e.form === 'write' && (e.scenario.invite?.writes ?? 0) > 0);
    assert.deepEqual([...new Set(written.flatMap((e) => e.scenario.clauses))].sort(), [
      'BAL-2',
      'INV-1',
      'INV-2',
      'INV-5',
      'INV-6',
    ]);
  });

  it('in the invite area, refusals run first, then safe forms, then writes', () => {
    const plan = planRun(catalogue, { allowWrites: true, maxInvites: 10, canonicalOnly: false });
    const phases = plan.entries
      .filter((e) => e.scenario.area === 'invite')
      .map((e) => (e.scenario.invite?.writes === 0 ? 0 : e.form === 'safe' ? 1 : 2));
    assert.deepEqual(
      phases,
      [...phases].sort((a, b) => a - b),
    );
    assert.ok(phases.includes(0) && phases.includes(1) && phases.includes(2));
  });

  it('--grep selects scenarios by title; canonical-only leaves out aliases and broken values', () => {
    const his3 = planRun(catalogue, { allowWrites: false, maxInvites: 10, canonicalOnly: false, grep: 'HIS-3' });
    assert.ok(his3.entries.length > 0);
    for (const e of his3.entries) assert.match(e.scenario.title, /HIS-3/);
    const plain = planRun(catalogue, { allowWrites: false, maxInvites: 10, canonicalOnly: true });
    for (const e of plain.entries) assert.equal(e.scenario.aliases.length, 0, e.scenario.title);
  });

  it('without writes, a scenario that needs a real invite is skipped with the reason', () => {
    const plan = planRun(catalogue, { allowWrites: false, maxInvites: 10, canonicalOnly: false });
    const inv6 = plan.entries.filter((e) => e.scenario.clauses.includes('INV-6'));
    assert.ok(inv6.length > 0);
    for (const e of inv6)
      assert.deepEqual(dataSkip(e, data), {
        status: 'skipped',
        kind: 'read-only',
        reason: 'needs writes: run with --allow-writes',
      });
    const env2 = plan.entries.find((e) => e.scenario.title.startsWith('ENV-2 invite-member'));
    assert.ok(env2);
    assert.equal(env2.form, 'safe');
    assert.equal(dataSkip(env2, { seen: 0 })?.status, 'inconclusive');
    assert.match(dataSkip(env2, { seen: 0 })?.reason ?? '', /safe form reuses a transaction ID/);
  });
});

describe('workers: one for a small plan, unless it has invites and reads', () => {
  it('counts the scenarios and their areas', () => {
    assert.equal(workersFor(['balance', 'history'], 2), 1);
    assert.equal(workersFor(['invite', 'invite'], 4), 1);
    assert.equal(workersFor(['invite', 'history'], 2), 2, 'the invites in one worker, the read beside them');
    assert.equal(workersFor(['invite', 'history', 'balance'], 4), 2, 'the reads of a small plan in one worker');
    assert.equal(workersFor(['invite', 'history'], 1), 1, 'never more than --concurrency');
    assert.equal(workersFor(Array(ONE_WORKER_PLAN + 1).fill('history'), 2), 2);
    assert.equal(workersFor(Array(ONE_WORKER_PLAN + 1).fill('history'), 8), 4, 'never more than MAX_WORKERS');
  });
});

describe("the run's one pace: shared by every worker where a provider or the run asks for it", () => {
  it('against a provider always; against the embedded simulator only when the run bounds or rates it', () => {
    assert.equal(sharedPace({ baseUrl: 'https://h2h.example' }, false), true);
    assert.equal(sharedPace({}, false), false, 'the embedded simulator as it is: each worker paces itself');
    assert.equal(sharedPace({ concurrencyGiven: true }, false), true, '--concurrency holds them together');
    assert.equal(sharedPace({ rateLimit: 8 }, false), true, '--rate-limit');
    assert.equal(sharedPace({}, true), true, 'a reading that limits the rate: the pace learns it for every worker');
  });

  it('a --concurrency given is told apart from the default it resolves to', () => {
    const embedded = contractConfigOf([]);
    assert.equal(embedded.concurrency, 2);
    assert.equal(sharedPace(embedded, false), false);
    const bounded = contractConfigOf(['--concurrency', '2']);
    assert.equal(bounded.concurrencyGiven, true);
    assert.equal(sharedPace(bounded, false), true);
    assert.equal(sharedPace(contractConfigOf([], { H2H_CONCURRENCY: '3' }), false), true, 'from the environment too');
  });
});

describe('HIS-3 date edges, from the account record dates', () => {
  it('asks first where a slip of one day crosses into another month, then every month edge, then every other slip', () => {
    const dates = ['2026-03-03', '2025-12-31', '2026-03-03', '2026-02-30', 'yesterday', '2026-01-05'];
    // In any order of the records: a shuffled history gives the same dates.
    for (const order of [dates, [...dates].reverse()]) {
      assert.deepEqual(recordDateEdges(order), [
        '2026-01-01',
        '2026-03-01',
        '2026-03-31',
        '2026-01-31',
        '2025-12-01',
        '2025-12-31',
        '2026-03-04',
        '2026-03-02',
        '2026-01-06',
        '2026-01-04',
        '2025-12-30',
      ]);
    }
    assert.deepEqual(recordDateEdges(dates, 2), ['2026-01-01', '2026-03-01']);
  });

  it('reaches the day after a month end however many months the account has', () => {
    const months = Array.from(
      { length: 24 },
      (_, i) => `20${24 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-15`,
    );
    assert.ok(recordDateEdges([...months, '2024-06-30']).includes('2024-07-01'));
    assert.equal(recordDateEdges(months).length, RECORD_DATE_EDGES);
  });
});

describe('discovery, from a history in any order', () => {
  const rec = (trx_id: string, date: string, member: string) => ({
    trx_id,
    manager_number: '6281100000002',
    member_number: member,
    date,
    status: trx_id.endsWith('f') ? 'FAILED' : 'SUCCESS',
  });
  const all = [
    rec('A1', '2026-03-03', '6281234560001'),
    rec('b2f', '2026-03-03', '081234560002'),
    rec('C3', '2026-01-05', '6281234560003'),
    rec('d-4', '2025-12-31', '6281234560004'),
    rec('E5', '2026-03-27', '6281234560005'),
    rec('F6f', '2025-12-31', '081234560006'),
    rec('G7', '2026-01-05', '6281234560007'),
  ];
  const answer = (data: object[]): Exchange =>
    ({
      endpoint: 'history-transaksi',
      method: 'GET',
      params: {},
      httpStatus: 200,
      body: { ok: true, status: 'SUCCESS', data },
    }) as unknown as Exchange;
  const discover = (order: number[]) => {
    const listed = order.map((i) => all[i] as object);
    // A first page of four, and a census that holds the rest, both in the order given.
    return discoveredData(answer(listed.slice(0, 4)), undefined, [], 4, [answer(listed)]);
  };

  it('picks the same records, kinds and guard whatever order the answers listed them in', () => {
    const orders = [
      [0, 1, 2, 3, 4, 5, 6],
      [6, 5, 4, 3, 2, 1, 0],
      [3, 0, 5, 2, 6, 1, 4],
      [4, 2, 6, 0, 1, 3, 5],
    ];
    const seen = orders.map(discover).map(({ seen: _, pageLimit: __, ...d }) => d);
    for (const d of seen.slice(1)) assert.deepEqual(d, seen[0]);
    assert.equal(seen[0]?.newestDate, '2026-03-27');
    assert.deepEqual(
      seen[0]?.records?.map((r) => r.trx_id),
      ['E5', 'A1', 'b2f', 'C3', 'G7', 'F6f', 'd-4'],
    );
    // A past date with the most records, its first trx_id: the same pick on every machine.
    assert.equal(seen[0]?.record?.trx_id, 'A1');
  });
});

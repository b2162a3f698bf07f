import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadApiModel } from '../src/openapi/load.ts';
import { ENDPOINTS, type Exchange, METHODS } from '../src/openapi/types.ts';
import { coverageByNames, coverageCases, GENERATED_ENDPOINTS, nearMissCases } from '../src/plan/generators/cases.ts';
import type { GeneratedCase } from '../src/plan/generators/generated-case.ts';
import { OPERATORS, type Operator, OTHER_JSON_TYPES } from '../src/plan/generators/operators.ts';
import { coveredPairs, type Factor, feasiblePairs, pairCases, pairFactors } from '../src/plan/generators/pairs.ts';
import { historyArbitrary, randomArbitrary } from '../src/plan/generators/properties.ts';
import { boundaryValues } from '../src/plan/generators/values.ts';
import { guardTrxIds, inviteParams, testNumber } from '../src/plan/sampling.ts';
import type { ScenarioContext } from '../src/plan/scenario.ts';
import { discoveredData } from '../src/target/target.ts';

const api = loadApiModel();

/** A scenario context for building cases only (nothing is sent). */
function buildContext(seed: number): ScenarioContext {
  let n = 0;
  const record = {
    trx_id: 'TRX-20260105-0008',
    manager_number: '6281100000002',
    member_number: '6281234560049',
    date: '2026-01-05',
  };
  return {
    target: {
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k-Abc-123',
      allowWrites: true,
      product: 'AKRAB-10GB',
      kind: 'akrab',
      msisdns: ['081299900001'],
    },
    data: {
      seen: 2,
      record,
      records: [record, { ...record, trx_id: 'TRX-2', date: '2025-03-14' }],
      knownTrxId: record.trx_id,
    },
    form: 'write',
    generation: { seed, examples: 20 },
    charges: { delayMs: 0 },
    newTrxId: () => `T-${++n}`,
    send: () => Promise.reject(new Error('not sent')),
    invite: () => Promise.reject(new Error('not sent')),
    inviteBatch: () => Promise.reject(new Error('not sent')),
    inviteAll: () => Promise.reject(new Error('not sent')),
    generated: () => undefined,
    noteJudged: () => undefined,
    observe: () => undefined,
    ownInvites: () => [],
    wasReplay: () => undefined,
    settle: () => Promise.reject(new Error('not sent')),
  };
}

describe('generated cases', () => {
  it('the coverage phase derives from openapi.yaml the values the issue names', () => {
    const labels = (endpoint: 'invite-member' | 'history-transaksi', name: string, sample: unknown) =>
      boundaryValues(api, endpoint, name, sample).map((v) => JSON.stringify(v.value));
    const msisdn = labels('invite-member', 'msisdn', '081299900001');
    for (const p of ['00', '07', '09', '61', '63', '99']) assert.ok(msisdn.includes(`"${p}1299900001"`), `prefix ${p}`);
    for (const v of [
      '"08129990"',
      '"081299900001111"',
      '"+081299900001"',
      '" 081299900001"',
      '"08 1299900001"',
      '"٠٨١٢٩٩٩٠٠٠٠١"',
    ])
      assert.ok(msisdn.includes(v), v);
    assert.deepEqual(
      ['"00"', '"13"', '"1"', '" 01"'].filter((v) => !labels('history-transaksi', 'month', '01').includes(v)),
      [],
    );
    const kind = labels('invite-member', 'kind', 'akrab');
    for (const v of ['"AKRAB"', '""', '" "', '"akra"', '"family"']) assert.ok(kind.includes(v), v);
    const limit = labels('history-transaksi', 'limit', 20);
    for (const v of ['0', '1', '-1', '1.5', '"01"', '1000000000000']) assert.ok(limit.includes(v), v);
    const date = labels('history-transaksi', 'date', '2026-01-05');
    for (const v of ['"2026-02-30"', '"2026/01/05"', '"2026-1-5"']) assert.ok(date.includes(v), v);
    const trx = boundaryValues(api, 'invite-member', 'trx_id', 'T-1').map((v) => String(v.value).length);
    for (const n of [0, 64, 65]) assert.ok(trx.includes(n), `trx_id of ${n} characters`);
  });

  it('what must be refused comes from the clauses: INV-3 for a number, INV-4 for a kind, nothing for a month', () => {
    const ctx = buildContext(1);
    const msisdn = coverageCases(api, ctx, 'invite-member', 'msisdn', 'msisdn', 'POST');
    assert.equal(msisdn.find((c) => c.label === 'msisdn: prefix 07')?.refuse, 'INV-3');
    assert.equal(msisdn.find((c) => c.label === 'msisdn: prefix 62')?.refuse, undefined);
    // A number a clause does not refuse is never sent where it could be charged: guarded by a used trx_id.
    const valid = msisdn.filter((c) => !c.refuse);
    for (const c of valid) assert.ok(guardTrxIds(ctx).includes(String(c.params.trx_id)), c.label);
    const refused = msisdn.filter((c) => c.refuse === 'INV-3');
    for (const c of refused) assert.deepEqual(c.intent, { expect: 'refusal', clause: 'INV-3' });
    assert.equal(
      coverageCases(api, ctx, 'invite-member', 'kind', 'type', 'GET').find(
        (c) => c.label === 'kind via type: akrab in upper case',
      )?.refuse,
      'INV-4',
    );
    assert.ok(
      coverageCases(api, ctx, 'history-transaksi', 'month', 'bulan', 'GET').every((c) => c.refuse === undefined),
    );
    const near = nearMissCases(ctx, 'saldo-user', 'GET');
    assert.ok(near.length >= 8);
    assert.ok(near.every((c) => (c.wrongKey && c.params.api_key !== ctx.target.apiKey) || c.params.key !== undefined));
  });

  it('one operator row added reaches every parameter of every endpoint, under every name, by both methods', () => {
    // A row of the operators' table (operators.ts) that applies to every parameter but the key (whose values go out
    // as near misses) and makes one text value: sent where every other class of the parameter goes.
    const probe: Operator = {
      name: 'probe',
      appliesTo: (p) => p.role !== 'secret',
      values: () => [{ value: 'OPERATOR-PROBE', label: 'the probe row' }],
    };
    const ctx = buildContext(1);
    let added = 0;
    let expected = 0;
    for (const endpoint of ENDPOINTS)
      for (const p of api.operation(endpoint).params.filter((x) => x.role !== 'secret')) {
        const names = api.namesOf(endpoint, p.name);
        const without = coverageByNames(api, ctx, endpoint, p.name, names);
        const cases = coverageByNames(api, ctx, endpoint, p.name, names, [...OPERATORS, probe]);
        const mine = cases.filter((c) => c.coverage?.valueClass === 'the probe row');
        added += cases.length - without.length;
        // The canonical name by both methods, each alias by one: the aliases take both methods between them.
        expected += 2 + (names.length - 1);
        assert.deepEqual(
          new Set(mine.map((c) => c.coverage?.sentAs)),
          new Set(names),
          `${endpoint} ${p.name}: every name`,
        );
        assert.deepEqual(new Set(mine.map((c) => c.method)), new Set(METHODS), `${endpoint} ${p.name}: both methods`);
        assert.ok(
          mine.every((c) => JSON.stringify(c.params).includes('OPERATOR-PROBE')),
          `${endpoint} ${p.name}: the value in the request`,
        );
      }
    assert.equal(added, expected, 'the requests the row adds: 2 for the canonical name, 1 for each alias');
    assert.ok(added >= 30, `${added} requests`);
  });

  it('the row of other JSON types goes for every parameter by POST, a kind in an array judged by INV-4', () => {
    const ctx = buildContext(1);
    assert.ok(OPERATORS.includes(OTHER_JSON_TYPES), 'a default row');
    const rows = OPERATORS;
    for (const endpoint of ENDPOINTS)
      for (const p of api.operation(endpoint).params.filter((x) => x.role !== 'secret')) {
        const cases = coverageByNames(api, ctx, endpoint, p.name, api.namesOf(endpoint, p.name), rows);
        const typed = cases.filter((c) => /JSON (array|object|true|false|number)|query operator/.test(c.label));
        assert.ok(typed.length >= 6, `${endpoint} ${p.name}: ${typed.length} other JSON types`);
        assert.ok(
          typed.every((c) => c.method === 'POST'),
          `${endpoint} ${p.name}: by POST only`,
        );
      }
    const kind = coverageCases(api, ctx, 'invite-member', 'kind', 'type', 'POST', rows).find((c) =>
      c.label.endsWith('in a JSON array'),
    );
    assert.deepEqual(kind?.params.type, [ctx.target.kind ?? 'akrab']);
    assert.equal(kind?.refuse, 'INV-4');
  });

  it('the coverage phase sends every class under every name and by both methods, each alias by one in turn', () => {
    const ctx = buildContext(1);
    const names = api.namesOf('invite-member', 'msisdn');
    assert.deepEqual(names, ['msisdn', 'number', 'nomor']);
    const cases = coverageByNames(api, ctx, 'invite-member', 'msisdn', names);
    const classes = new Set(cases.map((c) => c.coverage?.valueClass));
    assert.ok(classes.size > 100, `${classes.size} classes`);
    const by = (name: string, cls: unknown): string[] =>
      cases.filter((c) => c.coverage?.sentAs === name && c.coverage?.valueClass === cls).map((c) => c.method);
    for (const cls of classes) {
      const both = coverageCases(api, ctx, 'invite-member', 'msisdn', 'msisdn', 'GET').some(
        (c) => c.coverage?.valueClass === cls,
      );
      // The canonical name by both methods (one alone for a class only one method carries), each alias once.
      assert.equal(by('msisdn', cls).length, both ? 2 : 1, `${cls} under msisdn`);
      assert.equal(by('number', cls).length, 1, `${cls} under number`);
      assert.equal(by('nomor', cls).length, 1, `${cls} under nomor`);
      // The two aliases go by different methods: every class by both methods under the aliases too.
      if (both) assert.notEqual(by('number', cls)[0], by('nomor', cls)[0], `${cls}: number and nomor`);
    }
    // And each alias takes both methods, class by class.
    for (const name of ['number', 'nomor'])
      assert.deepEqual(
        new Set(cases.filter((c) => c.coverage?.sentAs === name).map((c) => c.method)),
        new Set(METHODS),
      );
  });

  it('every near miss of the key goes under both names on every endpoint, and under each name by both methods', () => {
    const ctx = buildContext(1);
    const sent = GENERATED_ENDPOINTS.flatMap((endpoint) =>
      METHODS.flatMap((method) =>
        nearMissCases(ctx, endpoint, method)
          .filter((c) => (c.params.api_key === undefined) !== (c.params.key === undefined))
          .map((c) => ({
            endpoint,
            method,
            name: c.params.api_key === undefined ? 'key' : 'api_key',
            miss: c.label.replace(/^\w+: /, ''),
          })),
      ),
    );
    const misses = new Set(sent.map((s) => s.miss));
    assert.ok(misses.size > 30, `${misses.size} near misses`);
    for (const miss of misses) {
      const of = sent.filter((s) => s.miss === miss);
      const pairs = (f: (s: (typeof of)[number]) => string): Set<string> => new Set(of.map(f));
      // A near miss only POST carries (a JSON array) goes on every endpoint by POST, under one name on each.
      const postOnly = !of.some((s) => s.method === 'GET');
      for (const endpoint of GENERATED_ENDPOINTS)
        for (const name of postOnly ? [] : ['api_key', 'key'])
          assert.ok(pairs((s) => `${s.endpoint} ${s.name}`).has(`${endpoint} ${name}`), `${miss}: ${endpoint} ${name}`);
      for (const name of ['api_key', 'key'])
        for (const method of postOnly ? ['POST'] : METHODS)
          assert.ok(pairs((s) => `${s.name} ${s.method}`).has(`${name} ${method}`), `${miss}: ${name} ${method}`);
    }
  });

  it('a guarded invite never repeats an invite of the gate exactly (a replaying provider would accept it)', () => {
    const ctx = { ...buildContext(1), target: { ...buildContext(1).target, allowWrites: false } };
    ctx.form = 'safe';
    // What the gate's own invites send: the configured product, a number in 08-form, no name.
    const own = JSON.stringify(inviteParams({ ...ctx, form: 'write' }, testNumber(ctx)).msisdn);
    for (const param of ['msisdn', 'product_code', 'kind', 'name', 'trx_id'])
      for (const c of coverageCases(api, ctx, 'invite-member', param, param, 'POST')) {
        const p = c.params;
        const repeatsOwn =
          p.trx_id === ctx.data.knownTrxId &&
          p.product_code === ctx.target.product &&
          JSON.stringify(p.msisdn) === own &&
          p.name === undefined;
        assert.ok(!repeatsOwn, `${c.label}: ${JSON.stringify(p)}`);
      }
    // Discovery takes the guard from a record of someone else's number when there is one.
    const history = (members: string[]) =>
      discoveredData(
        {
          endpoint: 'history-transaksi',
          method: 'GET',
          params: {},
          httpStatus: 200,
          body: {
            ok: true,
            status: 'SUCCESS',
            data: members.map((m, i) => ({
              trx_id: `T${i}`,
              manager_number: '6281100000002',
              member_number: m,
              date: `2026-01-0${i + 1}`,
            })),
          },
        } as unknown as Exchange,
        undefined,
        ['081299900001'],
      );
    assert.equal(history(['6281299900001', '081299900001', '6281234560049']).knownTrxId, 'T2');
    assert.equal(history(['6281299900001']).knownTrxId, 'T0', 'else a record of its own');
  });

  it('the same seed gives the same cases; another seed, others', () => {
    const ctx = buildContext(1);
    const sample = (seed: number) => ({
      random: fc.sample(randomArbitrary(api, ctx, 'history-transaksi'), { seed, numRuns: 25 }),
      invite: fc.sample(randomArbitrary(api, ctx, 'invite-member'), { seed, numRuns: 25 }),
      history: fc.sample(historyArbitrary(api, ctx.data.records ?? []), { seed, numRuns: 25 }),
    });
    assert.deepEqual(sample(42), sample(42));
    assert.notDeepEqual(sample(42).random, sample(43).random);
    assert.deepEqual(
      coverageCases(api, buildContext(1), 'history-transaksi', 'date', 'tanggal', 'POST'),
      coverageCases(api, buildContext(1), 'history-transaksi', 'date', 'tanggal', 'POST'),
    );
  });
});

/** No case goes by a method that cannot carry one of its levels (a JSON array by GET). */
function assertCarried(factors: readonly Factor[], cases: readonly GeneratedCase[]): void {
  for (const c of cases)
    for (const f of factors) {
      const level = f.levels.find((l) => l.label === c.row?.[f.name]);
      assert.ok(!level?.methods || level.methods.includes(c.method), `${c.label}`);
    }
}

describe('the covering array (issue 40: pairs, not only singles)', () => {
  /** Requests the array may take per endpoint (its rows and the repeats of `before`): docs/gate.md states it. */
  const BUDGET = 150;
  const endpoints = ['invite-member', 'history-transaksi', 'cek-trx-id'] as const;

  // The run's seed turns which value classes are levels: covertable left 1 to 3 feasible pairs out for some of them
  // (seed 1 had none), so every seed up to SEEDS is held.
  const SEEDS = 24;
  for (const endpoint of endpoints)
    it(`${endpoint}: every pair of levels one request can carry is in a case, within ${BUDGET} requests, for ${SEEDS} seeds`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) {
        const ctx = buildContext(seed);
        const factors = pairFactors(api, ctx, endpoint);
        const cases = pairCases(api, ctx, endpoint, factors);
        const want = feasiblePairs(factors);
        const got = coveredPairs(factors, cases);
        assert.ok(want.length > 20, `${want.length} pairs`);
        assert.deepEqual(
          want.filter((p) => !got.has(p)),
          [],
          `seed ${seed}`,
        );
        assert.ok(cases.length <= BUDGET, `seed ${seed}: ${cases.length} requests`);
        assertCarried(factors, cases);
      }
    });

  it('a factor added is crossed with every level of every other: all its pairs are covered', () => {
    const ctx = buildContext(1);
    const planted = {
      name: 'planted',
      levels: [
        { label: 'one', set: { q: 'one' } },
        { label: 'two', set: { q: 'two' } },
        { label: 'body only', set: { q: ['x'] }, methods: ['POST'] as const },
      ],
    };
    const factors = [...pairFactors(api, ctx, 'history-transaksi'), planted];
    const cases = pairCases(api, ctx, 'history-transaksi', factors);
    const mine = feasiblePairs(factors).filter((p) => p.includes('planted='));
    const others = factors.slice(0, -1).reduce((n, f) => n + f.levels.length, 0);
    // Each of the planted levels with every level of every other factor, less GET for the body-only one.
    assert.equal(mine.length, 3 * others - 1);
    const got = coveredPairs(factors, cases);
    assert.deepEqual(
      mine.filter((p) => !got.has(p)),
      [],
    );
  });

  it('an invite a clause says must be refused goes with a fresh ID and the product; any other one, guarded', () => {
    const ctx = buildContext(1);
    for (const c of pairCases(api, ctx, 'invite-member')) {
      if (c.refuse) {
        assert.equal(c.intent?.clause, c.refuse, c.label);
        assert.equal(c.params.product_code, ctx.target.product, c.label);
      } else {
        assert.equal(c.intent?.clause, 'used-trx', c.label);
        assert.ok(guardTrxIds(ctx).includes(String(c.params.trx_id)), c.label);
        assert.notEqual(c.params.product_code, ctx.target.product, c.label);
      }
    }
  });
});

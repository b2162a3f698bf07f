import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callApi } from '../src/client/client.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import type { Endpoint, Exchange, Method, Params } from '../src/openapi/types.ts';
import type { EndpointRefusal, Vocabulary } from '../src/reading/file.ts';
import { scenarioFacts } from '../src/reading/learn-reading.ts';
import { learnDay } from '../src/reading/learn-successes.ts';
import { learnVocabulary } from '../src/reading/learn-vocabulary.ts';
import { dayOffsets, vocabularyFacts } from '../src/reading/vocabulary-facts.ts';
import type { ReadingFact, ShownExchange } from '../src/report/scenario-result.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { OWN_SOURCE } from '../src/simulator/vocabulary.ts';

// Every served answer says where it came from (issue 27, Build 5): the `h2h-source` header and the mock's log
// mark each part learned (how often seen, which run), from openapi.yaml, or the simulator's own default.

const RUN = '2026-11-26T04:00:00.000Z';
const vocabulary: Vocabulary = {
  learned: { from: 'https://provider.example', at: RUN },
  refusals: {
    'wrong-key': {
      http: 403,
      status: 'invalid_key',
      fields: { ok: { type: 'boolean' }, status: { type: 'string' } },
      seen: 12,
      evidence: { request: 'GET /api/saldo-user?api_key=***', answer: 'HTTP 403 {"ok":false,"status":"invalid_key"}' },
    },
  },
};

async function get(url: string): Promise<{ source: string | null; status: number; body: Record<string, unknown> }> {
  const r = await fetch(url);
  return { source: r.headers.get('h2h-source'), status: r.status, body: (await r.json()) as Record<string, unknown> };
}

describe('h2h-source: where each part of an answer came from', () => {
  it('a learned refusal says learned, with how often it was seen and the run; the rest says default', async () => {
    const sim = await startSimulator({ vocabulary });
    try {
      const wrong = await get(`${sim.url}/api/saldo-user?api_key=not-the-key`);
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.status, 'invalid_key');
      assert.equal(
        wrong.source,
        `values=openapi; words=learned(wrong-key, seen 12, run ${RUN}); fields=learned(wrong-key, seen 12, run ${RUN})`,
      );
      // No word was learned for a missing parameter: the simulator's own, and it says so.
      const missing = await get(`${sim.url}/api/cek-trx-id?api_key=${sim.apiKey}`);
      assert.equal(missing.body.ok, false);
      assert.equal(missing.source, 'values=openapi; words=default(missing-parameter); fields=default');
      const saldo = await get(`${sim.url}/api/saldo-user?api_key=${sim.apiKey}`);
      assert.equal(saldo.body.ok, true);
      assert.equal(saldo.source, 'values=openapi; fields=default; forms=default');
      const logged = sim.log.filter((e) => e.endpoint !== undefined).map((e) => e.source);
      assert.deepEqual(logged, [wrong.source, missing.source, saldo.source], 'the log says the same');
    } finally {
      await sim.close();
    }
  });

  it("the simulator's own reading says so on every answer", async () => {
    const sim = await startSimulator();
    try {
      for (const url of [`${sim.url}/api/saldo-user?api_key=${sim.apiKey}`, `${sim.url}/api/saldo-user`])
        assert.equal((await get(url)).source, OWN_SOURCE);
    } finally {
      await sim.close();
    }
  });
});

describe("the provider's day: learned from the run's own invites' records, served by the mock", () => {
  const at = (iso: string): number => Date.parse(iso);
  const facts = (...spans: [number, number][]) =>
    spans.map((s) => ({ point: 'reading' as const, knob: 'vocabulary:day', value: JSON.stringify(s) }));

  it('a date read back tells the offsets from UTC it can be, and the whole hour nearest UTC is learned', () => {
    // Dated the 27th at 17:30 UTC on the 26th: the provider's clock was 6.5 to 30.5 hours ahead (WIB is 7).
    assert.deepEqual(dayOffsets('2026-11-27', at('2026-11-26T17:30:00Z')), [390, 1830]);
    assert.deepEqual(learnDay(facts([390, 1830])), { 'utc-offset-minutes': 420 });
    // Dated the 26th at 10:00 UTC: UTC itself fits, and is what is learned.
    assert.deepEqual(dayOffsets('2026-11-26', at('2026-11-26T10:00:00Z')), [-600, 840]);
    assert.deepEqual(learnDay(facts([-600, 840], [-590, 850])), { 'utc-offset-minutes': 0 });
    // Dated the day before: behind UTC.
    assert.deepEqual(learnDay(facts([-1470, -30])), { 'utc-offset-minutes': -60 });
    // No record of the run's own, a date that is not one, or records no one hour fits: not learned.
    assert.equal(learnDay([]), undefined);
    assert.equal(dayOffsets('27/11/2026'), undefined);
    assert.equal(learnDay(facts([390, 400], [-600, 0])), undefined);
  });

  it("the mock dates its new transactions by the learned day, in place of UTC's", async () => {
    // At any hour one of them dates otherwise than UTC: +14 h from 10:00 UTC, -10 h before it.
    for (const minutes of [0, 420, 840, -600]) {
      const sim = await startSimulator({ vocabulary: { ...vocabulary, day: { 'utc-offset-minutes': minutes } } });
      try {
        const params = {
          api_key: sim.apiKey,
          trx_id: `DAY-${minutes + 1000}`,
          product_code: sim.fixture.suite.product,
        };
        const invite = await callApi({
          baseUrl: sim.url,
          endpoint: 'invite-member',
          method: 'POST',
          params: { ...params, msisdn: sim.fixture.suite.msisdns[0], kind: sim.fixture.suite.kind },
          timeoutMs: 10_000,
        });
        assert.ok(invite.exchange, 'the invite was answered');
        assert.equal((invite.exchange.body as { ok?: unknown }).ok, true, invite.exchange.bodyText);
        const before = new Date(Date.now() + minutes * 60_000 - 5_000).toISOString().slice(0, 10);
        const after = new Date(Date.now() + minutes * 60_000 + 5_000).toISOString().slice(0, 10);
        const history = await callApi({
          baseUrl: sim.url,
          endpoint: 'history-transaksi',
          method: 'GET',
          params: { api_key: sim.apiKey, q: params.trx_id },
          timeoutMs: 10_000,
        });
        assert.ok(history.exchange, 'the history was answered');
        const dates = ((history.exchange.body as { data?: { date?: string }[] }).data ?? []).map((r) => r.date);
        assert.equal(dates.length, 1, history.exchange.bodyText);
        assert.ok([before, after].includes(dates[0] as string), `${minutes}: dated ${dates[0]}, want ${before}`);
      } finally {
        await sim.close();
      }
    }
  });
});

// The provider's words by the shape of a value, the order of its checks as its own rules show it, and what the
// records of the run's own invites carry back: learned from the facts of a run, served by the mock.

const SHOWN: ShownExchange = {
  method: 'GET',
  url: 'http://provider.example/api/history-transaksi',
  params: {},
  httpStatus: 200,
  contentType: 'application/json',
  body: '{}',
};
const SIG = ['message: string', 'ok: boolean', 'status: string'];

/** A refusal's fact: the request's faults, the answer's code and word, on an endpoint. */
const refusedFact = (faults: string[], status: string, endpoint: string, count = 1): ReadingFact => ({
  point: 'reading',
  knob: 'vocabulary:refused',
  value: JSON.stringify([faults, 200, status, SIG, false, endpoint]),
  count,
  detail: { message: `${status} message` },
  evidence: SHOWN,
});

/** A value's fact: its shape, the outcome, what the schema flagged, and the request's other faults. */
const valueFact = (
  at: string,
  shape: string,
  outcome: string,
  flagged: string,
  others: string[],
  count = 1,
): ReadingFact => {
  const [endpoint, param] = at.split('.');
  return {
    point: 'reading',
    knob: 'vocabulary:value',
    value: JSON.stringify([endpoint, param, shape, outcome, flagged, others]),
    count,
    evidence: SHOWN,
  };
};

/** A learned refusal in a word. */
const said = (status: string, seen = 5): EndpointRefusal => ({
  http: 200,
  status,
  fields: { ok: { type: 'boolean' }, status: { type: 'string' } },
  seen,
  evidence: { request: 'POST /api/history-transaksi', answer: `HTTP 200 {"ok":false,"status":"${status}"}` },
});

async function post(
  sim: { url: string },
  endpoint: Endpoint,
  params: Params,
  method: Method = 'POST',
): Promise<Record<string, unknown>> {
  const r = await callApi({ baseUrl: sim.url, endpoint, method, params, timeoutMs: 10_000 });
  assert.ok(r.exchange, `${endpoint} answered`);
  return r.exchange.body as Record<string, unknown>;
}

describe("a value's own word: a provider that words a kind two ways by the value's shape", () => {
  it('learns the kind by the word its own values explain, and the other word by shape', () => {
    const v = learnVocabulary(
      [
        refusedFact(['malformed-limit'], 'INVALID_LIMIT', 'history-transaksi', 5),
        refusedFact(['malformed-limit'], 'INVALID_TYPE', 'history-transaksi', 1),
        // `+5`: nothing wrong as the document reads it, refused as limit 0 is.
        refusedFact([], 'INVALID_LIMIT', 'history-transaksi', 3),
        valueFact('history-transaksi.limit', '+d1', '200 INVALID_LIMIT', '', [], 3),
        valueFact('history-transaksi.limit', 'd1 zero', '200 INVALID_LIMIT', 'invalid', [], 5),
        valueFact('history-transaksi.limit', 'number:fraction', '200 INVALID_TYPE', 'invalid', [], 1),
        valueFact('history-transaksi.limit', 'd2 int', 'ok', '', [], 20),
      ],
      [],
    );
    // INVALID_LIMIT, though faultless requests got it too: their limit's values explain it.
    assert.equal(v.refusals?.['malformed-limit']?.status, 'INVALID_LIMIT');
    assert.equal(v.values?.['history-transaksi.limit']?.['+d1'], 'malformed-limit');
    const word = v['value-words']?.['history-transaksi.limit']?.['number:fraction'];
    assert.equal(word?.status, 'INVALID_TYPE');
    assert.equal(word?.seen, 1);
    assert.equal(word?.first, undefined, 'never seen beside another fault: not known to come first');
    assert.equal(v['value-words']?.['history-transaksi.limit']?.['d1 zero'], undefined, "the kind's own word");
  });

  it('serves the word of the shape, the kind’s for every other, and a shape checked first before the key', async () => {
    const words: Vocabulary = {
      ...vocabulary,
      refusals: { ...vocabulary.refusals, 'malformed-limit': said('INVALID_LIMIT') },
      'value-words': { 'history-transaksi.limit': { 'number:fraction': said('INVALID_TYPE', 1) } },
    };
    const sim = await startSimulator({ vocabulary: words });
    try {
      const key = sim.apiKey;
      assert.equal((await post(sim, 'history-transaksi', { api_key: key, limit: 1.5 })).status, 'INVALID_TYPE');
      assert.equal((await post(sim, 'history-transaksi', { api_key: key, limit: 0 })).status, 'INVALID_LIMIT');
      assert.equal(
        (await post(sim, 'history-transaksi', { api_key: key, limit: '1.5' }, 'GET')).status,
        'INVALID_LIMIT',
      );
      // Not known to come first: the wrong key's word wins, as the order of checks has it.
      assert.equal((await post(sim, 'history-transaksi', { api_key: 'wrong', limit: 1.5 })).status, 'invalid_key');
    } finally {
      await sim.close();
    }
    const first = structuredClone(words);
    const entry = first['value-words']?.['history-transaksi.limit']?.['number:fraction'];
    if (entry) entry.first = true;
    const sim2 = await startSimulator({ vocabulary: first });
    try {
      assert.equal((await post(sim2, 'history-transaksi', { api_key: 'wrong', limit: 1.5 })).status, 'INVALID_TYPE');
    } finally {
      await sim2.close();
    }
  });

  it('learns a value of another JSON type the document takes, refused in a word no other fault explains, as refused first', () => {
    const v = learnVocabulary(
      [
        refusedFact(['malformed-trx-id'], 'INVALID_TRX_ID', 'invite-member', 5),
        refusedFact(['unknown-product'], 'PRODUCT_NOT_FOUND', 'invite-member', 20),
        refusedFact(['unknown-product'], 'INVALID_TYPE', 'invite-member', 4),
        // trx_id 1: the document reads it as "1"; only guarded invites (an unknown product) sent it.
        valueFact('invite-member.trx_id', 'number:int', '200 INVALID_TYPE', '', ['unknown-product'], 4),
        valueFact('invite-member.trx_id', 'A3d4', '200 PRODUCT_NOT_FOUND', '', ['unknown-product'], 20),
        valueFact('invite-member.trx_id', 'A3d4', 'ok', '', [], 20),
      ],
      [],
    );
    assert.equal(v.values?.['invite-member.trx_id']?.['number:int'], 'malformed-trx-id');
    const word = v['value-words']?.['invite-member.trx_id']?.['number:int'];
    assert.equal(word?.status, 'INVALID_TYPE');
    assert.equal(word?.first, true, 'it won over the unknown product every time');
    assert.equal(v.values?.['invite-member.trx_id']?.A3d4, undefined, 'a text of that shape is taken, as documented');
  });

  it('serves a value of another JSON type the provider refuses in its word, before an unknown product', async () => {
    const sim = await startSimulator({
      vocabulary: {
        ...vocabulary,
        refusals: { ...vocabulary.refusals, 'unknown-product': said('PRODUCT_NOT_FOUND') },
        values: { 'invite-member.trx_id': { 'number:int': 'malformed-trx-id' } },
        'value-words': { 'invite-member.trx_id': { 'number:int': { ...said('INVALID_TYPE', 4), first: true } } },
      },
    });
    try {
      const invite = { api_key: sim.apiKey, product_code: 'NO-SUCH-PRODUCT', msisdn: sim.fixture.suite.msisdns[0] };
      assert.equal((await post(sim, 'invite-member', { ...invite, trx_id: 1 })).status, 'INVALID_TYPE');
      assert.equal((await post(sim, 'invite-member', { ...invite, trx_id: 'T-1' })).status, 'PRODUCT_NOT_FOUND');
    } finally {
      await sim.close();
    }
  });
});

describe('the order of checks and the values, as the provider’s own rules show them', () => {
  it('a value its own rule refuses, sent with an unknown product, orders the two; a longer one it takes follows', () => {
    const v = learnVocabulary(
      [
        refusedFact(['malformed-trx-id'], 'INVALID_TRX_ID', 'invite-member', 5),
        refusedFact(['unknown-product'], 'PRODUCT_NOT_FOUND', 'invite-member', 20),
        // " T-1 ": the document takes it, the provider refuses it before it looks the product up.
        refusedFact(['unknown-product'], 'INVALID_TRX_ID', 'invite-member', 6),
        valueFact('invite-member.trx_id', ' A1-d1 ', '200 INVALID_TRX_ID', '', ['unknown-product'], 6),
        // 65 characters: over the document's 64, taken by the provider (its product is looked up, unknown).
        refusedFact(['malformed-trx-id', 'unknown-product'], 'PRODUCT_NOT_FOUND', 'invite-member', 3),
        valueFact('invite-member.trx_id', 'a65', '200 PRODUCT_NOT_FOUND', 'invalid', ['unknown-product'], 3),
        valueFact('invite-member.trx_id', 'A1-d1\\x0a', '200 INVALID_TRX_ID', 'invalid', [], 5),
      ],
      [],
    );
    const order = v.precedence ?? [];
    assert.ok(order.indexOf('malformed-trx-id') < order.indexOf('unknown-product'), order.join(' '));
    assert.ok(v['precedence-seen']?.includes('malformed-trx-id>unknown-product'));
    assert.equal(v.values?.['invite-member.trx_id']?.[' A1-d1 '], 'malformed-trx-id');
    assert.equal(v.values?.['invite-member.trx_id']?.a65, 'accepted');
  });

  it('a word another fault of the request has too says nothing of a value (one word for every malformed value)', () => {
    const v = learnVocabulary(
      [
        refusedFact(['malformed-limit'], 'invalid_parameter', 'history-transaksi', 5),
        refusedFact(['malformed-date'], 'invalid_parameter', 'history-transaksi', 5),
        valueFact('history-transaksi.limit', 'empty', 'ok', 'invalid', [], 4),
        valueFact('history-transaksi.date', 'a3', '200 invalid_parameter', 'invalid', [], 5),
        // A random request: an empty limit and a malformed date, refused in the one word of both.
        valueFact('history-transaksi.limit', 'empty', '200 invalid_parameter', 'invalid', ['malformed-date'], 2),
        valueFact('history-transaksi.date', 'a3', '200 invalid_parameter', 'invalid', ['malformed-limit'], 2),
      ],
      [],
    );
    assert.equal(v.values?.['history-transaksi.limit']?.empty, 'accepted');
  });

  it('a word the requests of those faults seldom got is no unknown fault’s: a read-only run’s guarded invites', () => {
    // Every invite has an unknown product and a used trx_id; four had a number the provider's own rule refuses.
    const v = learnVocabulary(
      [
        refusedFact(['unknown-product'], 'unknown_product', 'invite-member', 10),
        refusedFact(['unknown-product', 'used-trx-id'], 'unknown_product', 'invite-member', 100),
        refusedFact(['unknown-product', 'used-trx-id'], 'invalid_msisdn', 'invite-member', 4),
      ],
      [],
    );
    assert.equal(v.refusals?.['used-trx-id'], undefined, JSON.stringify(v.refusals?.['used-trx-id']));
    // The word most requests with those faults got still tells the one unknown among them.
    const usual = learnVocabulary(
      [
        refusedFact(['unknown-product'], 'unknown_product', 'invite-member', 10),
        refusedFact(['unknown-product', 'used-trx-id'], 'duplicate_trx_id', 'invite-member', 100),
      ],
      [],
    );
    assert.equal(usual.refusals?.['used-trx-id']?.status, 'duplicate_trx_id');
    assert.equal(usual.refusals?.['used-trx-id']?.inferred, true);
  });

  it('a product code the run knows, sent as an array and not found by the provider, is its unknown product', () => {
    const v = learnVocabulary(
      [
        refusedFact(['unknown-product'], 'PRODUK_TIDAK_ADA', 'invite-member', 10),
        valueFact('invite-member.product_code', 'array', '200 PRODUK_TIDAK_ADA', '', ['used-trx-id'], 6),
      ],
      [],
    );
    assert.equal(v.values?.['invite-member.product_code']?.array, 'unknown-product');
  });
});

describe('what the gate sees of a value, and what it learns from a property’s exploration', () => {
  const api = loadApiModel();
  const ctx = { apiKey: 'the-key', knownTrxIds: new Set<string>(), ownTrxIds: new Set<string>() };
  const exchange = (endpoint: Endpoint, method: Method, params: Params, body: Record<string, unknown>): Exchange => ({
    endpoint,
    method,
    params,
    url: `http://provider.example/api/${endpoint}`,
    httpStatus: 200,
    contentType: 'application/json',
    bodyText: JSON.stringify(body),
    body,
    durationMs: 1,
  });
  const values = (facts: { knob: string; value: string }[]) =>
    facts.filter((f) => f.knob === 'vocabulary:value').map((f) => JSON.parse(f.value) as unknown[]);

  it("each value's fact carries the request's other faults; a key by its JSON type alone; an array as an array", () => {
    const refused = exchange(
      'history-transaksi',
      'POST',
      { api_key: true, limit: 1.5, date: ['2026-11-26'] },
      { ok: false, status: 'INVALID_TYPE' },
    );
    const facts = values(vocabularyFacts(api, refused, ctx));
    assert.deepEqual(
      facts.find((f) => f[1] === 'api_key'),
      ['history-transaksi', 'api_key', 'boolean', '200 INVALID_TYPE', 'invalid', ['malformed-limit']],
    );
    assert.deepEqual(
      facts.find((f) => f[1] === 'limit'),
      ['history-transaksi', 'limit', 'number:fraction', '200 INVALID_TYPE', 'invalid', ['wrong-key']],
    );
    assert.equal(facts.find((f) => f[1] === 'date')?.[2], 'array');
    // A key that is a string is never described, not even by its shape.
    const text = exchange('saldo-user', 'POST', { api_key: 'not-the-key' }, { ok: false, status: 'FORBIDDEN' });
    assert.deepEqual(values(vocabularyFacts(api, text, ctx)), []);
  });

  it('a record of the run’s own invite is compared with what the invite sent', () => {
    const history = exchange(
      'history-transaksi',
      'GET',
      { api_key: 'the-key', q: 'OWN-1' },
      {
        ok: true,
        status: 'SUCCESS',
        data: [
          {
            trx_id: 'OWN-1',
            manager_number: '6281100000001',
            member_number: '6281299900001',
            date: '2026-11-26',
            name: 'Budi',
          },
        ],
      },
    );
    const own = {
      ...ctx,
      ownTrxIds: new Set(['OWN-1']),
      ownInvites: new Map([['OWN-1', { name: 'Budi', trx_id: 'OWN-1' }]]),
    };
    const echoes = vocabularyFacts(api, history, own)
      .filter((f) => f.knob === 'vocabulary:record-echo')
      .map((f) => f.value);
    assert.ok(echoes.includes(JSON.stringify(['name', 'name', 'same'])), echoes.join(' '));
    assert.ok(echoes.includes(JSON.stringify(['name', 'kind', 'other'])), echoes.join(' '));
  });

  it('a quiet answer (a property’s exploration) tells the vocabulary, never a knob', () => {
    const ex = exchange(
      'invite-member',
      'GET',
      { api_key: 'the-key', trx_id: 'T-1', product_code: 'P', msisdn: '6281', kind: 'ng' },
      { ok: false, status: 'INVALID_KIND', message: 'kind' },
    );
    const show = (): ShownExchange => SHOWN;
    const loud = scenarioFacts(api, [ex], ctx, () => false, show);
    const quiet = scenarioFacts(api, [], ctx, () => false, show, { quiet: [ex] });
    assert.ok(
      loud.some((f) => !f.knob.startsWith('vocabulary:')),
      'a loud one tells knobs',
    );
    assert.ok(
      quiet.some((f) => f.knob === 'vocabulary:refused'),
      'a quiet one tells the words',
    );
    assert.deepEqual(
      quiet.filter((f) => !f.knob.startsWith('vocabulary:')),
      [],
      'and no knob',
    );
  });
});

describe("what the records of the run's own invites carry back", () => {
  const success = (value: unknown, count = 1): ReadingFact => ({
    point: 'reading',
    knob: 'vocabulary:success',
    value: JSON.stringify(value),
    count,
    evidence: SHOWN,
  });
  const echo = (value: unknown, count: number): ReadingFact => ({
    point: 'reading',
    knob: 'vocabulary:record-echo',
    value: JSON.stringify(value),
    count,
  });

  it('learns a field of those records that carries a parameter of the invite back', () => {
    const v = learnVocabulary(
      [
        success(['history-transaksi', ['data: array', 'ok: boolean', 'status: string']], 5),
        {
          point: 'reading',
          knob: 'vocabulary:record',
          value: JSON.stringify(['own', ['date: string', 'name: null|string', 'trx_id: string']]),
          count: 12,
        },
        echo(['name', 'name', 'same'], 9),
        echo(['name', 'name', 'null'], 3),
        echo(['name', 'kind', 'other'], 12),
      ],
      [],
    );
    const own = v.successes?.['history-transaksi']?.records?.own;
    assert.equal(own?.name?.echo, 'name');
    assert.equal(own?.date?.echo, undefined);
  });

  it("serves the invite's own value in its records, null where it sent none", async () => {
    const sim = await startSimulator({
      vocabulary: {
        ...vocabulary,
        successes: {
          'history-transaksi': {
            fields: { ok: { type: 'boolean' }, status: { type: 'string' }, data: { type: 'array' } },
            records: {
              own: {
                trx_id: { type: 'string' },
                date: { type: 'string' },
                manager_number: { type: 'string' },
                member_number: { type: 'string' },
                name: { type: 'null|string', echo: 'name' },
              },
            },
            seen: 5,
            evidence: { request: 'GET /api/history-transaksi', answer: 'HTTP 200 {}' },
          },
        },
      },
    });
    try {
      const { suite } = sim.fixture;
      for (const [trx_id, name] of [
        ['ECHO-1', 'Budi'],
        ['ECHO-2', undefined],
      ] as const) {
        const invite = {
          api_key: sim.apiKey,
          trx_id,
          product_code: suite.product,
          msisdn: suite.msisdns[0],
          kind: suite.kind,
        };
        assert.equal((await post(sim, 'invite-member', name ? { ...invite, name } : invite)).ok, true);
        const history = await post(sim, 'history-transaksi', { api_key: sim.apiKey, q: trx_id }, 'GET');
        assert.deepEqual(
          (history.data as Record<string, unknown>[]).map((r) => r.name),
          [name ?? null],
        );
      }
    } finally {
      await sim.close();
    }
  });
});

describe('values the provider takes otherwise than the document, served as it reads them', () => {
  it('a boolean it takes is its JSON text; an array it was not seen to refuse, as the document reads it; a number carried back as text', async () => {
    const sim = await startSimulator({
      vocabulary: {
        ...vocabulary,
        values: { 'history-transaksi.q': { boolean: 'accepted' } },
        successes: {
          'history-transaksi': {
            fields: {
              ok: { type: 'boolean' },
              status: { type: 'string' },
              data: { type: 'array' },
              meta: { type: 'object' },
              'meta.q': { type: 'string', echo: 'q' },
            },
            seen: 5,
            evidence: { request: 'GET /api/history-transaksi', answer: 'HTTP 200 {}' },
          },
        },
      },
    });
    try {
      const key = sim.apiKey;
      // Searched for the text "true": no record holds it.
      const yes = await post(sim, 'history-transaksi', { api_key: key, q: true });
      assert.equal(yes.ok, true, JSON.stringify(yes));
      assert.deepEqual(yes.data, []);
      const listed = await post(sim, 'history-transaksi', { api_key: key, q: [sim.fixture.suite.msisdns[0]] });
      assert.equal(listed.ok, true, JSON.stringify(listed));
      const number = await post(sim, 'history-transaksi', { api_key: key, q: 1 });
      assert.equal((number.meta as { q?: unknown }).q, '1');
    } finally {
      await sim.close();
    }
  });
});

describe('a JSON number of a class the run never sent', () => {
  it('is judged as its digits were as a text: refused where the text was, taken where it was taken', async () => {
    const sim = await startSimulator({
      vocabulary: {
        ...vocabulary,
        // The run sent `limit` 2147483648 as a text only (refused), and the number 0 (taken).
        values: { 'history-transaksi.limit': { 'd10 int>=2^31': 'malformed-limit', 'number:zero': 'accepted' } },
      },
    });
    try {
      const key = sim.apiKey;
      const big = await post(sim, 'history-transaksi', { api_key: key, limit: 2 ** 31 });
      assert.equal(big.ok, false, JSON.stringify(big));
      assert.equal(big.status, 'INVALID_LIMIT');
      const small = await post(sim, 'history-transaksi', { api_key: key, limit: 5 });
      assert.equal(small.ok, true, JSON.stringify(small));
    } finally {
      await sim.close();
    }
  });
});

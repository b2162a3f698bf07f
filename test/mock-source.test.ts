import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callApi } from '../src/client/client.ts';
import { learnDay } from '../src/gate/learn-vocabulary.ts';
import { dayOffsets } from '../src/gate/vocabulary.ts';
import type { Vocabulary } from '../src/openapi/reading-file.ts';
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

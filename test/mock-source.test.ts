import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

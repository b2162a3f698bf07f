import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startCli } from './helpers.ts';

// The mock logs every request (GET /__sim/log). Its own key must show in no part of that log, nor of the process's
// output, whatever name or place a client sends it under: a phone name (msisdn, number, nomor, masked as a number
// would show 7 of its characters), the search text, a segment of the path, the name of a parameter.

/** Every substring of `key` of `n` characters. */
const pieces = (key: string, n: number): string[] =>
  Array.from({ length: key.length - n + 1 }, (_, i) => key.slice(i, i + n));

describe('h2h mock: the request log', () => {
  it('shows no part of the key, under any name, as a path segment or as a parameter name', async () => {
    const m = await startCli(['mock', '--listen', '127.0.0.1:0'], undefined, {
      H2H_BASE_URL: '',
      H2H_API_KEY: '',
      H2H_CONFIG: '',
    });
    const key = m.apiKey;
    let log = '';
    try {
      assert.ok(key.length >= 10, `the demo key was announced: ${JSON.stringify(key)}`);
      const k = encodeURIComponent(key);
      const get = (path: string): Promise<Response> => fetch(`${m.url}${path}`);
      const post = (path: string, body: unknown): Promise<Response> =>
        fetch(`${m.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const sent = [
        get(`/api/invite-member?api_key=${k}&msisdn=${k}&product_code=AKRAB-10GB&trx_id=LOG-1`),
        get(`/api/invite-member?api_key=${k}&number=${k}&product_code=AKRAB-10GB&trx_id=LOG-2`),
        post('/api/invite-member', { api_key: key, nomor: key, product_code: 'AKRAB-10GB', trx_id: 'LOG-3' }),
        get(`/api/saldo-user?api_key=${k}&msisdn=${k}`),
        get(`/api/history-transaksi?api_key=${k}&q=${k}`),
        post('/api/history-transaksi', { api_key: key, q: key }),
        get(`/api/saldo-user/${k}`),
        get(`/${k}`),
        get(`/api/${k}?api_key=${k}`),
        get(`/api/saldo-user?api_key=${k}&${k}=1`),
        post('/api/saldo-user', { api_key: key, [key]: 'x' }),
        post('/api/saldo-user', { api_key: key, nested: { [key]: key } }),
      ];
      for (const r of await Promise.all(sent)) await r.arrayBuffer();
      const res = await get('/__sim/log');
      assert.equal(res.status, 200);
      log = await res.text();
      const entries = JSON.parse(log) as { path: string }[];
      assert.equal(entries.length, sent.length, 'every request logged');
    } finally {
      await m.stop();
    }
    assert.equal(m.child.exitCode, 0, m.stderr());
    // The one place the key is meant to be: the announcement a shell or a test picks it up from.
    const announced = m.stdout().split('\n');
    assert.equal(announced.filter((l) => l === `H2H_API_KEY=${key}`).length, 1);
    const output = [...announced.filter((l) => l !== `H2H_API_KEY=${key}`), m.stderr(), log].join('\n');
    const shown = pieces(key, 5).filter((p) => output.includes(p));
    assert.deepEqual(shown, [], `parts of the key in the log or the output:\n${log}`);
  });
});

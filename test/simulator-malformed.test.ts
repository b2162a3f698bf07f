import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { judgeAnswer } from '../src/checks/judge.ts';
import { ENDPOINTS, type Exchange } from '../src/openapi/types.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { api } from './sim-harness.ts';

/** A seeded PRNG, so a failing case can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const COUNT = Number(process.env.FUZZ_COUNT ?? 4000);
const NAMES = [
  'api_key',
  'key',
  'trx_id',
  'trxid',
  'product_code',
  'produk',
  'code',
  'msisdn',
  'number',
  'nomor',
  'name',
  'nama',
  'kind',
  'type',
  'limit',
  'q',
  'search',
  'date',
  'tanggal',
  'month',
  'bulan',
  'year',
  'tahun',
  '__proto__',
  'constructor',
  'x',
];

function generator(rand: () => number, apiKey: string) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const str = (): string => {
    const kinds = [
      () => '',
      () => apiKey,
      () => String(Math.floor(rand() * 1e12)),
      () => `08${Math.floor(rand() * 1e10)}`,
      () => `62${Math.floor(rand() * 1e11)}`,
      () =>
        pick([
          'akrab',
          'circle',
          'family',
          'AKRAB-10GB',
          'CIRCLE-5GB',
          'Akrab 10 GB',
          '2026-11-02',
          '2026-02-30',
          '11',
          '13',
          '2026',
          '-1',
          '0',
          '1e3',
        ]),
      () => 'x'.repeat(Math.floor(rand() * 300)),
      () => String.fromCharCode(...Array.from({ length: 8 }, () => Math.floor(rand() * 0xd7ff))),
      () => '%zz%00\u0000"\'\\<>{}',
    ];
    return pick(kinds)();
  };
  const value = (depth = 0): unknown => {
    const r = rand();
    if (r < 0.5 || depth > 2) return str();
    if (r < 0.6) return Math.floor(rand() * 1e6) - 1000;
    if (r < 0.65) return rand() < 0.5;
    if (r < 0.7) return null;
    if (r < 0.85) return Array.from({ length: Math.floor(rand() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rand() * 3) }, () => [pick(NAMES), value(depth + 1)]));
  };
  return (): { method: string; path: string; headers: Record<string, string>; body?: Buffer } => {
    const method = rand() < 0.9 ? pick(['GET', 'POST']) : pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
    const ep = rand() < 0.9 ? pick(ENDPOINTS) : pick(['nope', 'saldo-user/extra', '..%2f..%2fetc', 'SALDO-USER', '']);
    const qs = new URLSearchParams();
    for (let i = Math.floor(rand() * 6); i > 0; i--) qs.append(pick(NAMES), str());
    let path = `/api/${ep}${qs.size ? `?${qs}` : ''}`;
    if (rand() < 0.05) path += '&%zz=%G1&=&&a';
    const headers: Record<string, string> = {};
    let body: Buffer | undefined;
    if (method === 'POST' || rand() < 0.05) {
      const type = pick([
        'application/json',
        'application/json; charset=utf-8',
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
        '',
        'application/vnd.api+json',
      ]);
      if (type) headers['content-type'] = type;
      const r = rand();
      if (r < 0.55)
        body = Buffer.from(
          JSON.stringify(
            Object.fromEntries(Array.from({ length: Math.floor(rand() * 7) }, () => [pick(NAMES), value()])),
          ),
        );
      else if (r < 0.65) body = Buffer.from(JSON.stringify(value()) ?? 'null');
      else if (r < 0.75) body = Buffer.from(`{"api_key": "${apiKey}", "limit": `);
      else if (r < 0.85)
        body = Buffer.from(
          new URLSearchParams(Array.from({ length: 3 }, (): [string, string] => [pick(NAMES), str()])).toString(),
        );
      else if (r < 0.95)
        body = Buffer.from(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)));
      else body = Buffer.alloc(64 * 1024 + 1 + Math.floor(rand() * 100_000), 0x61);
    }
    return { method, path, headers, ...(body ? { body } : {}) };
  };
}

function send(
  base: URL,
  agent: http.Agent,
  req: { method: string; path: string; headers: Record<string, string>; body?: Buffer },
) {
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const r = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        agent,
        headers: { ...req.headers, ...(req.body ? { 'content-length': req.body.length } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

describe('malformed and random requests', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  it(`${COUNT} generated requests (seed ${SEED}) all get the envelope, never a 5xx`, async () => {
    const next = generator(mulberry32(SEED), sim.apiKey);
    const base = new URL(sim.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const statuses = new Map<string, number>();
    try {
      let i = 0;
      const worker = async (): Promise<void> => {
        while (i < COUNT) {
          const n = i++;
          const req = next();
          const res = await send(base, agent, req);
          const where = `#${n} ${req.method} ${req.path.slice(0, 120)}`;
          assert.ok(res.status < 500, `${where}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
          if (req.method === 'HEAD') continue;
          assert.match(res.type, /^application\/json/, where);
          const body = JSON.parse(res.text) as { ok: unknown; status: unknown };
          statuses.set(String(body.status), (statuses.get(String(body.status)) ?? 0) + 1);
          const endpoint =
            ENDPOINTS.find((e) => req.path.startsWith(`/api/${e}?`) || req.path === `/api/${e}`) ?? 'saldo-user';
          const exchange: Exchange = {
            endpoint,
            method: 'POST',
            params: {},
            url: '',
            httpStatus: res.status,
            contentType: res.type,
            bodyText: res.text,
            body,
            durationMs: 0,
          };
          // ENV-1, ENV-4 and (for ok:true) the endpoint's result schema, judged by the shared checks.
          const findings = judgeAnswer(api, exchange).filter(
            (f) => ['ENV-1', 'ENV-4'].includes(f.clause) || body.ok === true,
          );
          const serious = findings.filter(
            (f) => !(f.clause === 'HIS-2' || f.clause === 'TRX-1' || f.clause === 'INV-1' || f.clause === 'INV-2'),
          );
          assert.deepEqual(serious, [], `${where}: ${res.text.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      agent.destroy();
    }
    // The run reached the business rules, not only the parser.
    for (const s of [
      'SUCCESS',
      'INVALID_API_KEY',
      'MALFORMED_JSON',
      'UNSUPPORTED_MEDIA_TYPE',
      'METHOD_NOT_ALLOWED',
      'NOT_FOUND',
      'BODY_TOO_LARGE',
    ]) {
      assert.ok((statuses.get(s) ?? 0) > 0, `status ${s} seen: ${JSON.stringify(Object.fromEntries(statuses))}`);
    }
  });

  it('raw garbage on the socket gets a 400 envelope, and the server keeps serving', async () => {
    const base = new URL(sim.url);
    const garbage = [
      'GARBAGE\r\n\r\n',
      'GET /api/saldo-user HTTP/9.9\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'POST /api/saldo-user HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      '\u0000\u0001\u0002\r\n\r\n',
      `GET /${'a'.repeat(100_000)} HTTP/1.1\r\n\r\n`,
    ];
    for (const g of garbage) {
      const reply = await new Promise<string>((resolve) => {
        const s = net.connect(Number(base.port), base.hostname, () => s.end(g));
        let data = '';
        s.on('data', (d) => {
          data += d.toString();
        });
        s.on('close', () => resolve(data));
        s.on('error', () => resolve(data));
        s.setTimeout(3000, () => s.destroy());
      });
      assert.match(reply, /^HTTP\/1\.1 400 /, JSON.stringify(g.slice(0, 40)));
      const parsed = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as { ok: boolean; status: string };
      assert.deepEqual([parsed.ok, parsed.status], [false, 'MALFORMED_REQUEST']);
    }
    const ok = await fetch(`${sim.url}/api/saldo-user?api_key=${sim.apiKey}`);
    assert.equal(ok.status, 200);
  });
});

describe('a parameter of the wrong JSON type', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  /** POSTs a JSON body; the answer's status and parsed body. */
  async function post(endpoint: string, body: Record<string, unknown>): Promise<{ http: number; body: unknown }> {
    const res = await fetch(`${sim.url}/api/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { http: res.status, body: await res.json() };
  }

  it('is refused with the envelope, under every name of every parameter of every endpoint, as an object is', async () => {
    const wrong: [unknown, string][] = [
      [['2026-11-25'], 'a JSON array'],
      [[], 'a JSON array'],
      [[sim.apiKey], 'a JSON array'],
      [{ value: '2026-11-25' }, 'a JSON object'],
      [true, 'a boolean'],
      [null, 'null'],
    ];
    let checked = 0;
    for (const endpoint of ENDPOINTS) {
      const op = api.operation(endpoint);
      for (const p of op.params)
        for (const name of [p.name, ...p.aliases])
          for (const [value, type] of wrong) {
            // Every other parameter as a valid request has it: the wrong type is the only thing at fault.
            const body: Record<string, unknown> = {
              api_key: sim.apiKey,
              trx_id: `WT${checked}`,
              product_code: 'AKRAB-10GB',
              msisdn: '081200000001',
              [name]: value,
            };
            if (endpoint === 'saldo-user' || endpoint === 'history-transaksi')
              for (const k of ['trx_id', 'product_code', 'msisdn']) if (k !== name) delete body[k];
            if (endpoint === 'cek-trx-id') for (const k of ['product_code', 'msisdn']) if (k !== name) delete body[k];
            // Under an alias, the alias alone (two names would be a conflict).
            if (name !== p.name) delete body[p.name];
            const r = await post(endpoint, body);
            const at = `${endpoint} ${name}: ${JSON.stringify(value)}`;
            const b = r.body as { ok?: unknown; status?: unknown; message?: unknown };
            assert.equal(b.ok, false, `${at}: ${JSON.stringify(r.body)}`);
            assert.equal(typeof b.status, 'string', at);
            assert.ok(r.http >= 400 && r.http < 500, `${at}: HTTP ${r.http}`);
            assert.match(String(b.message), new RegExp(`^${p.name} must be an? \\w+, not ${type}`), at);
            checked++;
          }
    }
    assert.ok(checked > 100, `${checked} cases`);
  });

  it('the same filter as text is read: a history filter sent as an array is refused, never "every record"', async () => {
    const all = await post('history-transaksi', { api_key: sim.apiKey, limit: 1000 });
    const records = (all.body as { data: { date: string }[] }).data;
    const date = records[records.length - 1]?.date ?? '';
    const some = records.filter((r) => r.date === date).length;
    assert.ok(some > 0 && some < records.length, 'a date that only some records have');
    const asText = await post('history-transaksi', { api_key: sim.apiKey, limit: 1000, date });
    assert.equal((asText.body as { data: unknown[] }).data.length, some);
    for (const tanggal of [[date], []]) {
      const asArray = await post('history-transaksi', { api_key: sim.apiKey, limit: 1000, tanggal });
      assert.deepEqual(asArray.body, {
        ok: false,
        status: 'INVALID_DATE',
        message: 'date must be a string, not a JSON array',
      });
      assert.equal(asArray.http, 400);
    }
  });
});

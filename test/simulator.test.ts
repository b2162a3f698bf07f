import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callApi } from '../src/client/client.ts';
import { BODY_TEXT_KEPT, CLAUSE_IDS, METHODS } from '../src/openapi/types.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { api, sweep } from './sim-harness.ts';

describe('simulator over real HTTP: every clause holds', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  it('every scenario passes, writes included, with no drift, covering every clause on both methods', async () => {
    const r = await sweep(sim);
    assert.deepEqual(r.findings, []);
    // The only drift: the states of the fixture's records other than SUCCESS, which the description leaves "not
    // shown" (openapi.yaml's TrxStatusRecord knows SUCCESS alone) and the record kinds look up on purpose.
    const states = new Set(sim.fixture.history.map((t) => t.status ?? 'SUCCESS').filter((s) => s !== 'SUCCESS'));
    assert.ok(states.size > 0, 'the fixture holds records of other states');
    assert.deepEqual(
      r.drift.filter((d) => !(d.kind === 'status' && d.path === '$.data.status' && states.has(d.value ?? ''))),
      [],
    );
    assert.deepEqual(
      r.skipped.map((s) => s.title),
      [],
    );
    for (const clause of CLAUSE_IDS) {
      for (const method of METHODS) {
        assert.ok(
          r.ran.some((s) => s.clauses.includes(clause) && s.methods.includes(method)),
          `${clause} on ${method}`,
        );
      }
    }
  });

  it('every alias of openapi.yaml is sent on both methods', async () => {
    const r = await sweep(sim, { filter: (s) => s.aliases.length > 0 });
    assert.deepEqual(r.findings, []);
    for (const op of api.operations.values()) {
      for (const p of op.params) {
        for (const alias of p.aliases) {
          for (const method of METHODS) {
            assert.ok(
              r.ran.some((s) => s.endpoint === op.endpoint && s.aliases.includes(alias) && s.methods.includes(method)),
              `${op.endpoint} ${alias} ${method}`,
            );
          }
        }
      }
    }
  });
});

describe('simulator faults at run time (each fault’s own clauses: test/mutation.test.ts)', () => {
  it('the runtime switch turns a fault on and off', async () => {
    const sim = await startSimulator();
    try {
      const bal = (s: { clauses: string[] }) => s.clauses.includes('BAL-1');
      const set = (name: string) =>
        fetch(`${sim.url}/__sim/fault?name=${name}`, { method: 'POST' }).then((r) => r.json());
      assert.deepEqual(await set('saldo-as-string'), { active: { name: 'saldo-as-string' } });
      assert.ok((await sweep(sim, { filter: bal })).failedClauses.has('BAL-1'));
      await set('none');
      assert.deepEqual((await sweep(sim, { filter: bal })).findings, []);
      const bad = await fetch(`${sim.url}/__sim/fault?name=nope`, { method: 'POST' });
      assert.equal(bad.status, 400);
    } finally {
      await sim.close();
    }
  });
});

describe('simulator admin parameters', () => {
  it('a malformed one is refused with 400 and the envelope naming it, and changes nothing', async () => {
    const sim = await startSimulator();
    try {
      const admin = async (method: string, query: string): Promise<{ status: number; body: unknown }> => {
        const r = await fetch(`${sim.url}/__sim/${query}`, { method });
        return { status: r.status, body: await r.json() };
      };
      assert.equal((await admin('POST', 'fault?name=saldo-as-string')).status, 200);
      const cases: [string, string, RegExp][] = [
        ['POST', 'fault?name=latency&ms=abc', /^ms: must be a whole number of milliseconds from 0 to \d+, got 'abc'$/],
        ['POST', 'fault?name=latency&ms=-5', /^ms: .*got '-5'$/],
        ['POST', 'fault?name=slow-drip&ms=1.5', /^ms: .*got '1\.5'$/],
        ['POST', 'fault?name=latency&ms=', /^ms: .*got ''$/],
        ['POST', 'fault?name=latency&ms=99999999999', /^ms: .*got '99999999999'$/],
        ['POST', 'fault?name=saldo-as-string&ms=10', /^ms: only latency and slow-drip take ms, not saldo-as-string$/],
        ['POST', 'fault?name=none&ms=10', /^ms: only latency and slow-drip take ms, not none$/],
        ['POST', 'fault?name=nope', /^name: unknown fault 'nope'; one of: none, envelope-no-status, /],
        ['POST', 'fault?name=latency&name=reset', /^name: given more than once$/],
        ['POST', 'fault?name=latency&delay=5', /^delay: unknown parameter; \/__sim\/fault takes name and ms$/],
        ['GET', 'log?since=3', /^since: unknown parameter; \/__sim\/log takes no parameter$/],
        ['GET', 'faults?all=1', /^all: unknown parameter; \/__sim\/faults takes no parameter$/],
      ];
      for (const [method, query, message] of cases) {
        const r = await admin(method, query);
        assert.equal(r.status, 400, `${method} ${query}`);
        const body = r.body as { ok: unknown; status: unknown; message: string };
        assert.deepEqual(Object.keys(body), ['ok', 'status', 'message'], query);
        assert.equal(body.ok, false, query);
        assert.equal(body.status, 'INVALID_PARAMETER', query);
        assert.match(body.message, message, query);
      }
      // Nothing changed: the fault set before is still the active one.
      assert.deepEqual(((await admin('GET', 'faults')).body as { active: unknown }).active, {
        name: 'saldo-as-string',
      });
      // A well-formed ms is taken, and delays every answer by it.
      assert.deepEqual((await admin('POST', 'fault?name=latency&ms=300')).body, {
        active: { name: 'latency', ms: 300 },
      });
      const t0 = performance.now();
      await (await fetch(`${sim.url}/api/saldo-user?api_key=${sim.apiKey}`)).arrayBuffer();
      assert.ok(performance.now() - t0 >= 290, `delayed by ms=300: ${performance.now() - t0} ms`);
      assert.deepEqual((await admin('POST', 'fault?name=none')).body, { active: null });
    } finally {
      await sim.close();
    }
  });
});

describe('simulator shapes', () => {
  it('serves under a path prefix, and answers the envelope outside it', async () => {
    const sim = await startSimulator({ prefix: '/h2h/v1' });
    try {
      assert.match(sim.url, /\/h2h\/v1$/);
      assert.deepEqual((await sweep(sim)).findings, []);
      const outside = await fetch(sim.url.replace('/h2h/v1', '/api/saldo-user'));
      assert.equal(outside.status, 404);
      assert.equal(((await outside.json()) as { status: string }).status, 'NOT_FOUND');
    } finally {
      await sim.close();
    }
  });

  it('the legal profile keeps the contract; its extra fields are drift, its refusal words only beside a known list', async () => {
    const sim = await startSimulator({ reading: parseReading('legal') });
    try {
      const r = await sweep(sim);
      assert.deepEqual(r.findings, []);
      const paths = new Set(r.drift.map((d) => `${d.kind} ${d.path}`));
      for (const p of [
        'field $.server_time',
        'field $.data[].channel',
        'field $.detail.quota',
        'field $.error_code',
        'field $.meta',
        'field $.data[].meta',
      ]) {
        assert.ok(paths.has(p), `drift ${p} in ${[...paths].join(', ')}`);
      }
      // No refusal word is drift without a known list (a record's state other than SUCCESS is, as in the reference).
      assert.deepEqual(
        [...paths].filter((p) => p.startsWith('status') && p !== 'status $.data.status'),
        [],
      );
      const listed = await sweep(sim, { knownStatuses: ['INVALID_API_KEY'], grep: 'AUTH-1' });
      assert.ok(listed.drift.some((d) => d.kind === 'status' && d.value === 'UNAUTHORIZED'));
    } finally {
      await sim.close();
    }
  });

  it('a rate limit answered as 503 with Retry-After is waited out like a 429, never a finding', async () => {
    const sim = await startSimulator({ reading: parseReading('rate-limit=20/s:503') });
    try {
      // Without discovery's lookups, which would meet the limit before the scenarios whose waits are counted.
      const r = await sweep(sim, { grep: '^(BAL-1|ENV-2 saldo-user)', kindLookups: 0 });
      assert.deepEqual(r.findings, []);
      assert.ok(r.ran.length >= 5);
      assert.ok(r.results.reduce((a, x) => a + x.waits.count, 0) > 0, 'some answers were 503 and waited out');
      assert.ok(sim.log.some((e) => e.httpStatus === 503));
    } finally {
      await sim.close();
    }
  });
});

describe('transport faults behave as named', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());
  const call = (timeoutMs = 2000, bodyCap?: number) =>
    callApi({
      baseUrl: sim.url,
      endpoint: 'saldo-user',
      method: 'GET',
      params: { api_key: sim.apiKey },
      timeoutMs,
      ...(bodyCap ? { bodyCap } : {}),
    });

  it('latency delays the answer by the given milliseconds', async () => {
    sim.setFault({ name: 'latency', ms: 300 });
    const r = await call();
    assert.equal(r.exchange?.httpStatus, 200);
    assert.ok(r.totalMs >= 300, `took ${r.totalMs}`);
    assert.ok(r.phases.firstByte >= 290, `first byte after ${r.phases.firstByte}`);
  });

  it('http-500-html answers 500 with an HTML body', async () => {
    sim.setFault({ name: 'http-500-html' });
    const r = await call();
    assert.equal(r.exchange?.httpStatus, 500);
    assert.match(r.exchange?.contentType ?? '', /text\/html/);
    assert.equal(r.exchange?.body, undefined);
  });

  it('reset closes the connection without an answer', async () => {
    sim.setFault({ name: 'reset' });
    const r = await call();
    assert.equal(r.error?.reason, 'reset');
    assert.equal(r.exchange, undefined);
  });

  it('hang never answers: the caller times out at its deadline', async () => {
    sim.setFault({ name: 'hang' });
    const r = await call(400);
    assert.equal(r.error?.reason, 'timeout');
    assert.ok(r.totalMs >= 390 && r.totalMs < 1500, `gave up after ${r.totalMs}`);
  });

  it('invalid-json sends cut-off JSON as application/json', async () => {
    sim.setFault({ name: 'invalid-json' });
    const r = await call();
    assert.equal(r.exchange?.httpStatus, 200);
    assert.match(r.exchange?.contentType ?? '', /application\/json/);
    assert.equal(r.exchange?.body, undefined);
    assert.throws(() => JSON.parse(r.exchange?.bodyText ?? ''));
  });

  it('oversized-body sends 4 MiB, cut at the cap', async () => {
    sim.setFault({ name: 'oversized-body' });
    const r = await call(5000, 1024 * 1024);
    assert.equal(r.error?.reason, 'body_too_large');
    assert.equal(r.truncated, true);
    // The exchange keeps the beginning of a long text (BODY_TEXT_KEPT) and its whole length.
    assert.equal(r.exchange?.bodyLength, 1024 * 1024);
    assert.equal(r.exchange?.bodyText.length, BODY_TEXT_KEPT);
    const whole = await call(10_000, 8 * 1024 * 1024);
    assert.ok((whole.exchange?.bodyLength ?? 0) > 4 * 1024 * 1024);
  });

  it('slow-drip sends the body a byte at a time', async () => {
    sim.setFault({ name: 'slow-drip', ms: 20 });
    const late = await call(300);
    assert.equal(late.error?.reason, 'timeout');
    const r = await call(10_000);
    assert.equal((r.exchange?.body as { ok: boolean } | undefined)?.ok, true);
    assert.ok(r.phases.body > 500, `body phase ${r.phases.body} ms`);
    sim.setFault(null);
  });
});

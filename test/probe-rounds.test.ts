import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ApiModel } from '../src/openapi/load.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import { PROBE_DEFAULTS } from '../src/probe/config.ts';
import { Probe } from '../src/probe/probe.ts';
import { mostInFlight } from '../src/simulator/request-log.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import {
  listenLocal,
  NO_TARGET_ENV,
  type Running,
  samples,
  startCli,
  startProbe,
  stopChild,
  targetFor,
} from './helpers.ts';

// The probe never goes blind, whatever a round meets, and never multiplies the provider's load, however many
// scrape it.

/** A target that answers every request with 100,000 nested arrays (valid JSON, no envelope, no bottom). */
async function nestedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const body = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  return listenLocal(server);
}

const get = async (url: string): Promise<{ status: number; text: string }> => {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
};

describe('the probe never goes blind', () => {
  let nested: Awaited<ReturnType<typeof nestedServer>>;
  let probe: Running;
  before(async () => {
    nested = await nestedServer();
    probe = await startProbe({ url: nested.url, apiKey: 'some-key-1234' });
  });
  after(async () => {
    await probe?.stop();
    await nested?.close();
  });

  it('against an answer nested 100,000 deep: h2h_probe_success 0 with reason envelope within two rounds, /probe 200, /status', async () => {
    const t0 = performance.now();
    let m = new Map<string, number>();
    // A round a second: the second round has ended by 2.5 s after the first scrape that shows none.
    // A probe's sample shows as soon as it ends; its round is counted when the round's last probe has ended.
    let rounds = 0;
    while (performance.now() - t0 < 2_500) {
      m = samples((await get(`${probe.url}/metrics`)).text);
      rounds = (JSON.parse((await get(`${probe.url}/status`)).text) as { rounds: number }).rounds;
      if (m.has('h2h_probe_success{target="default",endpoint="saldo-user"}') && rounds >= 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const l = 'target="default",endpoint="saldo-user"';
    assert.equal(m.get(`h2h_probe_success{${l}}`), 0, `no success sample within two rounds`);
    assert.ok((m.get(`h2h_probe_runs_total{${l}}`) ?? 0) >= 1, 'the run is counted');
    assert.ok((m.get(`h2h_probe_failures_total{${l},reason="envelope"}`) ?? 0) >= 1, 'with its reason');
    assert.ok((m.get(`h2h_probe_contract_violations_total{${l},clause="ENV-1"}`) ?? 0) >= 1, 'and its clause');
    const status = JSON.parse((await get(`${probe.url}/status`)).text) as {
      rounds: number;
      targets: Record<string, Record<string, { reason?: string; message?: string }>>;
    };
    assert.ok(status.rounds >= 1, `${status.rounds} rounds`);
    assert.equal(status.targets.default?.['saldo-user']?.reason, 'envelope');
    assert.match(status.targets.default?.['saldo-user']?.message ?? '', /JSON nested deeper than 64 levels/);
    const scraped = await get(`${probe.url}/probe?target=default`);
    assert.equal(scraped.status, 200, scraped.text);
    assert.equal(samples(scraped.text).get(`h2h_probe_success{${l}}`), 0);
    assert.equal(samples(scraped.text).get(`h2h_probe_failure{${l},reason="envelope"}`), 1);
  });

  it('a probe that fails inside the toolkit is success 0, reason internal, counted, in /status: the round goes on', async () => {
    const sim = await startSimulator();
    try {
      const real = loadApiModel();
      // A judge that throws on every answer of saldo-user: the other probes of the round are not touched.
      const broken = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === 'drift')
            return (endpoint: string, ...rest: unknown[]) => {
              if (endpoint === 'saldo-user') throw new Error('a bug in the judge');
              return (real.drift as (...a: unknown[]) => unknown)(endpoint, ...rest);
            };
          return Reflect.get(target, prop, receiver);
        },
      }) as ApiModel;
      const p = new Probe(broken, { ...PROBE_DEFAULTS, targets: [targetFor(sim, { name: 'sim' })] }, () => undefined);
      const results = await p.roundAll();
      const saldo = results.find((r) => r.endpoint === 'saldo-user');
      assert.equal(saldo?.success, false);
      assert.equal(saldo?.reason, 'internal');
      assert.match(saldo?.message ?? '', /a bug in the judge/);
      assert.equal(results.find((r) => r.endpoint === 'history-transaksi')?.success, true);
      assert.equal(p.rounds, 1);
      const m = samples((await p.metrics.exposition()).body);
      assert.equal(m.get('h2h_probe_success{target="sim",endpoint="saldo-user"}'), 0);
      assert.equal(m.get('h2h_probe_failures_total{target="sim",endpoint="saldo-user",reason="internal"}'), 1);
      assert.equal(p.statusJson().rounds, 1);
    } finally {
      await sim.close();
    }
  });
});

describe('one round per target at a time, however many scrape it', () => {
  let sim: Simulator;
  let probe: Running;
  before(async () => {
    // Each answer takes 300 ms: a round stands long enough for every scrape to arrive during it.
    sim = await startSimulator({ latencyMs: 300 });
    probe = await startCli(
      ['probe', '--exporter', '--base-url', sim.url, '--api-key', sim.apiKey, '--listen', '127.0.0.1:0'],
      /^H2H_PROBE_URL=(\S+)$/m,
      NO_TARGET_ENV,
    );
  });
  after(async () => {
    await stopChild(probe?.child);
    await sim?.close();
  });

  it('200 concurrent scrapes of /probe?target=default: every one answered 200, the provider sees one round at a time', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(`${probe.url}/probe?target=default`)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200], answers.find((a) => a.status !== 200)?.text);
    for (const a of answers)
      assert.equal(samples(a.text).get('h2h_probe_success{target="default",endpoint="saldo-user"}'), 1);
    const api = sim.log.filter((e) => e.endpoint !== undefined);
    // A round is saldo-user and history at once, then cek-trx-id after history: two requests in flight at most.
    assert.ok(mostInFlight(api) <= 2, `${mostInFlight(api)} requests in flight at once`);
    const rounds = api.filter((e) => e.endpoint === 'saldo-user').length;
    assert.ok(rounds <= 2, `${rounds} rounds for 200 scrapes`);
    assert.ok(api.length <= 3 * rounds, `${api.length} requests reached the provider`);
    // A scrape after the round ended starts a new one: shared is only what is in flight.
    const later = await get(`${probe.url}/probe?target=default`);
    assert.equal(later.status, 200);
    assert.equal(sim.log.filter((e) => e.endpoint === 'saldo-user').length, rounds + 1);
  });
});

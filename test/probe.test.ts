import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Gauge } from 'prom-client';
import { loadApiModel } from '../src/openapi/load.ts';
import { KNOBS } from '../src/openapi/open-points.ts';
import { CLAUSE_IDS, READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { PROBE_DEFAULTS, type ProbeConfig, type ProbeTarget } from '../src/probe/config.ts';
import { EXPORTER_OUTCOMES, PHASES } from '../src/probe/metrics.ts';
import { Probe } from '../src/probe/probe.ts';
import { PROBE_REASONS, type ProbeReason, probeEndpoint } from '../src/probe/probe-endpoint.ts';
import { startProbeServer } from '../src/probe/server.ts';
import { PROBE_READING_POINTS } from '../src/reading/probe-points.ts';
import type { FaultName } from '../src/simulator/faults/index.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { freePort, ROOT, runCli, samples, startCli, startProbe, targetFor } from './helpers.ts';

const api = loadApiModel();
const tmp = mkdtempSync(join(tmpdir(), 'h2h-probe-'));
const hasPromtool = spawnSync('promtool', ['--version']).status === 0;

function cfgFor(
  sim: { url: string; apiKey: string },
  over: Partial<ProbeConfig> = {},
  target: Partial<ProbeTarget> = {},
): ProbeConfig {
  return {
    ...PROBE_DEFAULTS,
    targets: [targetFor(sim, target)],
    listen: { host: '127.0.0.1', port: 0 },
    ...over,
  };
}
const quiet = (): void => {};

/** A one-route server for answers the simulator does not give (a redirect, a 200 that is not JSON). */
async function oddServer(
  status: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer((_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

describe('each check: one bounded reason, within its deadline', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());
  const opts = { method: 'POST' as const, timeoutMs: 400, bodyCap: 1024 * 1024, historyLimit: 5 };
  const check = (
    endpoint: 'saldo-user' | 'history-transaksi' = 'saldo-user',
    target = { name: 'sim', baseUrl: sim.url, apiKey: sim.apiKey },
  ) => probeEndpoint(api, target, endpoint, opts);

  const cases: [FaultName | null, 'saldo-user' | 'history-transaksi', ProbeReason | 'success'][] = [
    [null, 'saldo-user', 'success'],
    [null, 'history-transaksi', 'success'],
    ['reset', 'saldo-user', 'reset'],
    ['hang', 'saldo-user', 'timeout'],
    ['slow-drip', 'saldo-user', 'timeout'],
    ['http-500-html', 'saldo-user', 'http_status'],
    ['invalid-json', 'saldo-user', 'json_parse'],
    ['oversized-body', 'saldo-user', 'body_too_large'],
    ['gzip-bomb', 'saldo-user', 'body_too_large'],
    ['saldo-as-string', 'saldo-user', 'schema'],
    ['history-date-format', 'history-transaksi', 'schema'],
    ['limit-ignored', 'history-transaksi', 'clause'],
  ];
  for (const [fault, endpoint, want] of cases) {
    it(`${fault ?? 'no fault'} on ${endpoint} -> ${want}`, async () => {
      sim.setFault(fault ? { name: fault } : null);
      const r = await check(endpoint);
      sim.setFault(null);
      assert.equal(r.success ? 'success' : r.reason, want, r.message);
      assert.ok(r.totalMs < opts.timeoutMs + 150, `ended within its deadline: ${r.totalMs} ms`);
      if (want === 'clause' || want === 'schema') assert.ok(r.findings.length > 0);
    });
  }

  it('a round against a provider that compresses its answers (gzip) succeeds on every endpoint', async () => {
    const gz = await startSimulator({ reading: parseReading('content-coding=gzip') });
    try {
      const p = new Probe(api, cfgFor(gz), quiet);
      const round = await p.roundAll();
      assert.deepEqual(
        round.map((r) => [r.endpoint, r.success ? 'success' : `${r.reason}: ${r.message}`]),
        READ_ONLY_ENDPOINTS.map((e) => [e, 'success']),
      );
      assert.ok(gz.log.length > 0);
    } finally {
      await gz.close();
    }
  });

  it('a JSON answer without the envelope -> envelope', async () => {
    const odd = await oddServer(200, { 'content-type': 'application/json' }, '{"saldo": 5}');
    try {
      assert.equal((await check('saldo-user', { name: 'x', baseUrl: odd.url, apiKey: 'k' })).reason, 'envelope');
    } finally {
      await odd.close();
    }
  });

  it('a refused connection -> connect; a wrong key -> refused; a redirect or a non-JSON 200 -> http_status / content_type', async () => {
    assert.equal(
      (await check('saldo-user', { name: 'x', baseUrl: 'http://127.0.0.1:9', apiKey: 'k' })).reason,
      'connect',
    );
    assert.equal(
      (await check('saldo-user', { name: 'x', baseUrl: sim.url, apiKey: 'wrong-key-000' })).reason,
      'refused',
    );
    const redirect = await oddServer(302, { location: 'http://127.0.0.1:9/' }, '');
    const html = await oddServer(200, { 'content-type': 'text/html' }, '<html></html>');
    try {
      assert.equal(
        (await check('saldo-user', { name: 'x', baseUrl: redirect.url, apiKey: 'k' })).reason,
        'http_status',
      );
      assert.equal((await check('saldo-user', { name: 'x', baseUrl: html.url, apiKey: 'k' })).reason, 'content_type');
    } finally {
      await redirect.close();
      await html.close();
    }
  });

  it('ok:false under a 5xx without Retry-After is server_error (an outage), under any other status refused', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: [number, string, ProbeReason, RegExp][] = [
      [503, '{"ok":false,"status":"MAINTENANCE"}', 'server_error', /^ok:false status MAINTENANCE \(HTTP 503\)$/],
      [500, '{"ok":false,"status":"ERROR","message":"backend down"}', 'server_error', /\(HTTP 500\)$/],
      [403, '{"ok":false,"status":"INVALID_API_KEY"}', 'refused', /^ok:false status INVALID_API_KEY \(HTTP 403\)$/],
      [200, '{"ok":false,"status":"INVALID_API_KEY"}', 'refused', /\(HTTP 200\)$/],
    ];
    for (const [status, body, reason, message] of cases) {
      const s = await oddServer(status, json, body);
      try {
        const r = await check('saldo-user', { name: 'x', baseUrl: s.url, apiKey: 'k' });
        assert.equal(r.reason, reason, `${status} ${body}: ${r.message}`);
        assert.match(r.message ?? '', message);
        assert.equal(r.httpStatus, status);
      } finally {
        await s.close();
      }
    }
  });

  it('a 429, or a 503 with Retry-After, is rate_limited (with the wait asked); a bare 503 is http_status', async () => {
    const envelope = JSON.stringify({ ok: false, status: 'RATE_LIMITED', message: 'slow down' });
    const json = { 'content-type': 'application/json' };
    const cases: [number, Record<string, string>, string, RegExp][] = [
      [429, { ...json, 'retry-after': '7' }, 'rate_limited', /^HTTP 429, Retry-After 7$/],
      [429, {}, 'rate_limited', /^HTTP 429$/],
      [503, { 'content-type': 'text/plain', 'retry-after': '2' }, 'rate_limited', /^HTTP 503, Retry-After 2$/],
      [503, { 'content-type': 'text/plain' }, 'http_status', /^HTTP 503/],
    ];
    for (const [status, headers, reason, message] of cases) {
      const s = await oddServer(status, headers, status === 429 ? envelope : 'busy');
      try {
        const r = await check('saldo-user', { name: 'x', baseUrl: s.url, apiKey: 'k' });
        assert.equal(r.reason, reason, `${status} ${JSON.stringify(headers)}`);
        assert.match(r.message ?? '', message);
        assert.deepEqual(r.findings, []);
      } finally {
        await s.close();
      }
    }
  });
});

describe('read-only by construction', () => {
  it('probeEndpoint refuses invite-member before sending anything', async () => {
    const sim = await startSimulator();
    try {
      await assert.rejects(
        probeEndpoint(api, { name: 's', baseUrl: sim.url, apiKey: sim.apiKey }, 'invite-member' as never, {
          method: 'POST',
          timeoutMs: 500,
          bodyCap: 1024,
          historyLimit: 1,
        }),
        /calls only saldo-user, history-transaksi, cek-trx-id/,
      );
      const p = new Probe(api, cfgFor(sim), quiet);
      for (let i = 0; i < 3; i++) await p.roundAll();
      assert.deepEqual([...new Set(sim.log.map((e) => e.endpoint))].sort(), [...READ_ONLY_ENDPOINTS].sort());
    } finally {
      await sim.close();
    }
  });

  it('no file of src/probe names invite-member', () => {
    const dir = join(ROOT, 'src/probe');
    for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f), 'utf8').includes('invite-member'), f);
  });
});

describe('memory stays bounded', () => {
  it('a few hundred rounds against oversized-body and hang leave the heap where it was', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const sim = await startSimulator();
    try {
      // Hangs end at a short timeout; oversized bodies get a generous one, so that a loaded machine still reads
      // them up to the cap rather than timing out first.
      const p = new Probe(api, cfgFor(sim, {}, { timeoutMs: 60 }), quiet);
      const big = new Probe(api, cfgFor(sim, {}, { timeoutMs: 10_000 }), quiet);
      const heap = (): number => {
        gc();
        gc();
        return process.memoryUsage().heapUsed;
      };
      for (let i = 0; i < 20; i++) await Promise.all([p.roundAll(), big.roundAll()]); // warm up: compiled code, caches
      const start = heap();
      for (const [fault, probe] of [
        ['oversized-body', big],
        ['hang', p],
      ] as const) {
        sim.setFault({ name: fault });
        for (let i = 0; i < 150; i++) await probe.roundAll();
      }
      // 10 MiB once decoded, 10 KiB on the wire: never decoded past the cap, so buffers stay small at every round.
      sim.setFault({ name: 'gzip-bomb' });
      await p.roundAll();
      // What one round leaves in buffers (live and not yet collected), from a collected start: a round's three
      // probes decoded whole would hold 30 MiB; cut at the 1 MiB cap, a few MiB.
      let peak = 0;
      for (let i = 0; i < 20; i++) {
        gc();
        const before = process.memoryUsage().arrayBuffers;
        await p.roundAll();
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      }
      assert.ok(peak < 10 * 1024 * 1024, `a round left ${(peak / 1024 / 1024).toFixed(1)} MiB of buffers`);
      const end = heap();
      assert.ok(
        end - start < 8 * 1024 * 1024,
        `heap grew ${((end - start) / 1024 / 1024).toFixed(1)} MiB over 300 rounds`,
      );
      const metrics = await p.metrics.exposition(undefined);
      assert.match(
        (await big.metrics.exposition(undefined)).body,
        /h2h_probe_failures_total\{target="sim",endpoint="saldo-user",reason="body_too_large"\} 150\n/,
      );
      assert.match(
        metrics.body,
        /h2h_probe_failures_total\{target="sim",endpoint="saldo-user",reason="timeout"\} (1[5-9]\d|2[01]\d)/,
      );
    } finally {
      await sim.close();
    }
  });
});

describe('the running probe', () => {
  let sim: Simulator;
  let probe: Awaited<ReturnType<typeof startCli>>;
  const KEY = 'PROBE-CANARY-9d41e7-KEY';
  before(async () => {
    sim = await startSimulator({ apiKey: KEY });
    // Two targets from a config file, keys from the environment: the simulator, and a port nobody listens on.
    const config = join(tmp, 'probe.yaml');
    writeFileSync(
      config,
      [
        "schedule: '* * * * * *'",
        'timeout: 500ms',
        'listen: 127.0.0.1:0',
        'log_format: json',
        'targets:',
        `  - {name: sim, base_url: '${sim.url}', api_key_env: H2H_SIM_KEY}`,
        `  - {name: down, base_url: 'http://127.0.0.1:${await freePort()}', api_key_env: H2H_SIM_KEY}`,
        '',
      ].join('\n'),
    );
    // With --throw-deprecation: on Node 24, the target, the running probe uses nothing deprecated.
    probe = await startCli(['probe', '--config', config], /^H2H_PROBE_URL=(\S+)$/m, {
      H2H_SIM_KEY: KEY,
      NODE_OPTIONS: '--throw-deprecation',
    });
  });
  after(async () => {
    await probe.stop();
    await sim.close();
  });
  const metrics = async (): Promise<Map<string, number>> => samples(await (await fetch(`${probe.url}/metrics`)).text());
  const until = async (what: string, ok: () => Promise<boolean>, ms = 10_000): Promise<void> => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail(`${what} did not happen within ${ms} ms`);
  };
  const value = (m: Map<string, number>, name: string, labels: string): number =>
    m.get(`${name}{${labels}}`) ?? Number.NaN;

  it('succeeds on the three read-only endpoints and exports the balance', async () => {
    await until('three successes', async () => {
      const m = await metrics();
      return READ_ONLY_ENDPOINTS.every((e) => value(m, 'h2h_probe_success', `target="sim",endpoint="${e}"`) === 1);
    });
    assert.equal(value(await metrics(), 'h2h_balance', 'target="sim"'), sim.state.saldo('demo'));
  });

  for (const [fault, reason] of [
    ['reset', 'reset'],
    ['hang', 'timeout'],
    ['http-500-html', 'http_status'],
    ['invalid-json', 'json_parse'],
    ['oversized-body', 'body_too_large'],
    ['slow-drip', 'timeout'],
  ] as const) {
    it(`${fault}: records ${reason} within the deadline, keeps its schedule, keeps serving /metrics`, async () => {
      const before = await metrics();
      const runs0 = value(before, 'h2h_probe_runs_total', 'target="sim",endpoint="saldo-user"');
      const fails0 = value(before, 'h2h_probe_failures_total', `target="sim",endpoint="saldo-user",reason="${reason}"`);
      sim.setFault({ name: fault });
      try {
        await until(`${reason} recorded twice`, async () => {
          const t0 = performance.now();
          const m = await metrics();
          assert.ok(performance.now() - t0 < 1000, '/metrics answered within a second');
          return (
            value(m, 'h2h_probe_failures_total', `target="sim",endpoint="saldo-user",reason="${reason}"`) >= fails0 + 2
          );
        });
        const m = await metrics();
        assert.ok(
          value(m, 'h2h_probe_runs_total', 'target="sim",endpoint="saldo-user"') >= runs0 + 2,
          'the schedule went on',
        );
        assert.equal(value(m, 'h2h_probe_success', 'target="sim",endpoint="saldo-user"'), 0);
        const status = (await (await fetch(`${probe.url}/status`)).json()) as {
          targets: Record<string, Record<string, { reason: string; durationMs: number }>>;
        };
        const s = status.targets.sim?.['saldo-user'];
        assert.equal(s?.reason, reason);
        assert.ok((s?.durationMs ?? 0) < 500 + 150, `within its deadline: ${s?.durationMs} ms`);
      } finally {
        sim.setFault(null);
      }
    });
  }

  it('a refused connection (the down target) records connect on every round, beside the healthy target', async () => {
    const before = value(
      await metrics(),
      'h2h_probe_failures_total',
      'target="down",endpoint="saldo-user",reason="connect"',
    );
    await until(
      'connect recorded twice more',
      async () =>
        value(await metrics(), 'h2h_probe_failures_total', 'target="down",endpoint="saldo-user",reason="connect"') >=
        before + 2,
    );
    const m = await metrics();
    assert.equal(value(m, 'h2h_probe_success', 'target="down",endpoint="history-transaksi"'), 0);
    assert.equal(value(m, 'h2h_probe_success', 'target="sim",endpoint="history-transaksi"'), 1);
    assert.ok(
      value(m, 'h2h_probe_skipped_total', 'target="down",endpoint="cek-trx-id"') >= 2,
      'no transaction to look up: skipped, counted',
    );
  });

  it('recovers when the fault is gone', async () => {
    await until(
      'success again',
      async () => value(await metrics(), 'h2h_probe_success', 'target="sim",endpoint="saldo-user"') === 1,
    );
  });

  it('labels hold no URL, key, phone number or transaction ID', async () => {
    const text = await (await fetch(`${probe.url}/metrics`)).text();
    const allowed = new Set<string>([
      'sim',
      'down',
      ...READ_ONLY_ENDPOINTS,
      ...PROBE_REASONS,
      ...Object.values(PHASES),
      ...CLAUSE_IDS,
      ...EXPORTER_OUTCOMES,
      // The reading: its points, and each point's values as open-points.ts names them.
      ...PROBE_READING_POINTS.flatMap((p) => [p, ...KNOBS[p].values]),
    ]);
    for (const m of text.matchAll(/^(h2h_\w+)\{([^}]*)\}/gm)) {
      for (const [, , v] of (m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) {
        if (/^\d+(\.\d+)?$|^\+Inf$/.test(v ?? '')) continue; // histogram le
        assert.ok(allowed.has(v ?? ''), `${m[1]} label value ${v}`);
      }
    }
  });

  it('the key and phone numbers appear nowhere in /metrics, /status or the logs', async () => {
    const outputs = [
      await (await fetch(`${probe.url}/metrics`)).text(),
      await (await fetch(`${probe.url}/status`)).text(),
      probe.stdout(),
      probe.stderr(),
    ];
    const phones = sim.fixture.history.flatMap((h) => [h.member, h.manager, `0${h.member.slice(2)}`]);
    for (const out of outputs) {
      assert.ok(!out.includes(KEY), 'key found');
      for (const p of phones) assert.ok(!out.includes(p), `phone ${p} found`);
    }
    const logLines = probe
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    assert.ok(logLines.length >= 6, 'one JSON line per failed check');
    const line = JSON.parse(logLines[0] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(line).slice(0, 3), ['time', 'level', 'msg']);
    assert.ok(['sim', 'down'].includes(String(line.target)), String(line.target));
  });

  it('serves the Prometheus text format, also to a scraper that asks for OpenMetrics; promtool finds nothing to say', async () => {
    const asked = await fetch(`${probe.url}/metrics`, {
      headers: { accept: 'application/openmetrics-text; version=1.0.0' },
    });
    assert.match(asked.headers.get('content-type') ?? '', /text\/plain; version=0\.0\.4/);
    // Twice: the counters keep their `_total` names from one scrape to the next.
    for (let i = 0; i < 2; i++) assert.match(await (await fetch(`${probe.url}/metrics`)).text(), /_total\{/);
    const text = await fetch(`${probe.url}/metrics`);
    assert.match(text.headers.get('content-type') ?? '', /text\/plain; version=0\.0\.4/);
    if (!hasPromtool) return assert.fail('promtool is not installed (.ci/run installs Debian prometheus)');
    const r = spawnSync('promtool', ['check', 'metrics'], { input: await text.text(), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal((r.stdout + r.stderr).trim(), '');
  });

  it('/healthz answers; other paths and methods get 404 / 405', async () => {
    assert.equal((await fetch(`${probe.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${probe.url}/nope`)).status, 404);
    assert.equal((await fetch(`${probe.url}/metrics`, { method: 'POST' })).status, 405);
  });
});

describe('probe process and server', () => {
  it('a failing collector makes /metrics answer 500, and the server goes on', async () => {
    const sim = await startSimulator();
    const p = new Probe(api, cfgFor(sim), quiet);
    const server = await startProbeServer(p, '127.0.0.1', 0);
    try {
      new Gauge({
        name: 'h2h_test_broken',
        help: 'a collector that throws',
        registers: [p.metrics.registry],
        collect() {
          throw new Error('collector exploded');
        },
      });
      const r = await fetch(`${server.url}/metrics`);
      assert.equal(r.status, 500);
      assert.match(await r.text(), /collector exploded/);
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it('a check longer than the interval is not stacked: the overlap is counted and the schedule goes on', async () => {
    const sim = await startSimulator({ fault: { name: 'hang' } });
    // The config refuses a deadline that does not fit the interval; built by hand here, a check takes 1.5 s every 1 s.
    const p = new Probe(
      api,
      cfgFor(sim, {}, { schedule: '* * * * * *', timeoutMs: 1500, trxId: 'TRX-20261102-0021' }),
      quiet,
    );
    const overlaps = async (): Promise<number> =>
      Number(
        /^h2h_probe_overlaps_total\{target="sim"\} (\S+)$/m.exec((await p.metrics.exposition(undefined)).body)?.[1],
      );
    p.start();
    try {
      for (let i = 0; i < 100 && (await overlaps()) < 1; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await overlaps()) >= 1, 'an overlap was counted');
      const rounds = p.rounds;
      for (let i = 0; i < 60 && p.rounds === rounds; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(p.rounds > rounds, 'rounds went on after the overlap');
      // Never two rounds at once: the simulator never held more than the three requests of one round.
      assert.ok(sim.log.length <= 3 * (p.rounds + 1), `${sim.log.length} requests for ${p.rounds} rounds`);
    } finally {
      await p.stop();
      await sim.close();
    }
  });

  it('SIGTERM stops the schedule, lets the check in flight end by its deadline, and exits 0', async () => {
    const sim = await startSimulator({ fault: { name: 'hang' } });
    try {
      const p = await startProbe(sim);
      // Wait until a check is in flight: the simulator holds a request it will never answer.
      for (let i = 0; i < 100 && !sim.log.some((e) => e.endpoint && e.httpStatus === 0); i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        sim.log.some((e) => e.endpoint && e.httpStatus === 0),
        'a check is hanging',
      );
      const t0 = performance.now();
      await p.stop();
      const took = performance.now() - t0;
      assert.equal(p.child.exitCode, 0, p.stderr());
      assert.ok(took < 2500, `stopped in ${took} ms`);
      assert.match(p.stderr(), /SIGTERM: stopping the schedule/);
      await assert.rejects(fetch(`${p.url}/healthz`));
    } finally {
      await sim.close();
    }
  });

  it('--once exits 0 when every probe succeeded, 1 otherwise, and prints JSON with --json', async () => {
    const good = await runCli(['probe', '--once']);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /every probe succeeded/);
    const sim = await startSimulator({ fault: { name: 'saldo-as-string' } });
    try {
      const bad = await runCli(['probe', '--once', '--json', '--base-url', sim.url, '--api-key', sim.apiKey]);
      assert.equal(bad.code, 1);
      const out = JSON.parse(bad.stdout) as { ok: boolean; targets: { default: Record<string, { reason?: string }> } };
      assert.equal(out.ok, false);
      assert.equal(out.targets.default['saldo-user']?.reason, 'schema');
    } finally {
      await sim.close();
    }
  });

  it('refuses bad config with exit 2 and an exact message', async () => {
    const file = (name: string, text: string): string => {
      const p = join(tmp, name);
      writeFileSync(p, text);
      return p;
    };
    const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [
        ['--schedule', '*/5 * * * * *', '--timeout', '5s'],
        /timeout 5000 ms must be shorter than the schedule's interval \(5000 ms for '\*\/5 \* \* \* \* \*'\)/,
      ],
      [['--schedule', 'every minute'], /schedule 'every minute' is not a cron expression/],
      [['--timeout', 'fast'], /--timeout fast: not a duration: a number and a unit, like 500ms/],
      [['--listen', 'localhost'], /--listen: must be host:port \(e\.g\. 127\.0\.0\.1:9464\), got 'localhost'/],
      [['--base-url', 'http://127.0.0.1:1'], /--base-url needs its key/, { H2H_API_KEY: '' }],
      [['--api-key', 'k-123'], /--api-key: only with --base-url/],
      [['--log-format', 'xml'], /--log-format xml: must be one of text, json/],
      [
        [
          '--config',
          file('key.yaml', 'targets:\n  - name: prod\n    base_url: http://127.0.0.1:1\n    api_key: hunter2\n'),
        ],
        /never put the key in a config file \(found 'targets\[0\]\.api_key'\)/,
      ],
      [
        [
          '--config',
          file('ui.yaml', 'targets:\n  - {name: p, base_url: "https://ops:hunter2@h2h.example", api_key_env: K}\n'),
        ],
        /targets\[0\] \(p\): base_url: a base URL must not carry a user name or password .*got 'https:\/\/\*\*\*@h2h\.example'/,
      ],
      [
        [
          '--config',
          file(
            'env.yaml',
            'targets:\n  - name: prod\n    base_url: http://127.0.0.1:1\n    api_key_env: H2H_NOT_SET_ANYWHERE\n',
          ),
        ],
        /environment variable H2H_NOT_SET_ANYWHERE is not set/,
      ],
      [
        [
          '--config',
          file(
            'dup.yaml',
            'targets:\n  - {name: a, base_url: "http://x", api_key_env: HOME}\n  - {name: a, base_url: "http://y", api_key_env: HOME}\n',
          ),
        ],
        /the name 'a' is used twice/,
      ],
      [
        ['--config', file('name.yaml', 'targets:\n  - {name: "http://x", base_url: "http://x", api_key_env: HOME}\n')],
        /\$\.targets\[0\]\.name: must match \^\[A-Za-z0-9_-\]\{1,64\}\$/,
      ],
    ];
    for (const [args, message, env] of cases) {
      const r = await runCli(['probe', '--once', ...args], env ? { env } : {});
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.ok(!r.stderr.includes('hunter2'));
    }
  });

  it('the monitoring assets pass promtool: config, rules and rule unit tests', () => {
    if (!hasPromtool) return assert.fail('promtool is not installed (.ci/run installs Debian prometheus)');
    const dir = join(ROOT, 'monitoring');
    for (const args of [
      ['check', 'config', 'prometheus.yml'],
      ['check', 'config', 'prometheus-exporter.yml'],
      ['check', 'config', 'prometheus-sharded.yml'],
      ['check', 'rules', 'alerts.yml'],
      ['test', 'rules', 'alerts.test.yml'],
    ]) {
      const r = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, `promtool ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    }
    const dash = JSON.parse(readFileSync(join(dir, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const metric of [
      'h2h_probe_success',
      'h2h_balance',
      'h2h_probe_duration_seconds_bucket',
      'h2h_probe_failures_total',
      'h2h_probe_contract_violations_total',
      'h2h_probe_tls_cert_expiry_timestamp_seconds',
      'h2h_balance_timestamp_seconds',
      'h2h_probe_schedule_lateness_seconds',
      'nodejs_eventloop_lag_max_seconds',
      'h2h_provider_reading_info',
    ]) {
      assert.ok(exprs.includes(metric), `dashboard shows ${metric}`);
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadApiModel } from '../src/openapi/load.ts';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { PROBE_DEFAULTS, type ProbeConfig, type ProbeTarget } from '../src/probe/config.ts';
import { Probe } from '../src/probe/probe.ts';
import { probeEndpoint } from '../src/probe/probe-endpoint.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { probeConfigOf, runCli, samples, startCli, targetFor } from './helpers.ts';
import { hasOpenssl, makePki, type TestCert, type TestPki } from './tls-certs.ts';

const api = loadApiModel();
const tmp = mkdtempSync(join(tmpdir(), 'h2h-probe-tls-'));
const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
const quiet = (): void => {};
const DAY = 86_400_000;

const config = (targets: ProbeTarget[]): ProbeConfig => ({
  ...PROBE_DEFAULTS,
  targets,
  listen: { host: '127.0.0.1', port: 0 },
});

async function exposition(p: Probe): Promise<{ text: string; m: Map<string, number> }> {
  const text = (await p.metrics.exposition(undefined)).body;
  return { text, m: samples(text) };
}

/** A TCP proxy that holds the server's first bytes (its TLS ServerHello) for `delayMs`, then relays freely. */
async function slowHandshakeProxy(
  upstreamPort: number,
  delayMs: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let first = true;
    upstream.on('data', (chunk) => {
      if (!first) return void client.write(chunk);
      first = false;
      upstream.pause();
      setTimeout(() => {
        client.write(chunk);
        upstream.resume();
      }, delayMs);
    });
    client.on('data', (chunk) => upstream.write(chunk));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('HTTPS: certificates made in the test', { skip: hasOpenssl ? false : 'openssl is not installed' }, () => {
  let pki: TestPki;
  const certs: Record<'valid' | 'expired' | 'wrongName' | 'self', TestCert> = {} as never;
  const sims: Record<keyof typeof certs, Simulator> = {} as never;
  before(async () => {
    pki = makePki(tmp);
    const now = Date.now();
    certs.valid = pki.issue('valid', {
      sans: ['IP:127.0.0.1', 'DNS:localhost'],
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 20 * DAY),
    });
    certs.expired = pki.issue('expired', {
      sans: ['IP:127.0.0.1'],
      notBefore: new Date(now - 40 * DAY),
      notAfter: new Date(now - 2 * DAY),
    });
    certs.wrongName = pki.issue('elsewhere', {
      sans: ['DNS:api.elsewhere.example'],
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 10 * DAY),
    });
    certs.self = pki.selfSigned('self', { sans: ['IP:127.0.0.1'], days: 5 });
    for (const k of Object.keys(certs) as (keyof typeof certs)[])
      sims[k] = await startSimulator({ tls: { cert: certs[k].cert, key: certs[k].key } });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.close();
  });

  const probeOnce = async (
    sim: Simulator,
    tls: ProbeTarget['tls'],
  ): Promise<{ p: Probe; text: string; m: Map<string, number> }> => {
    const p = new Probe(api, config([targetFor(sim, { tls, trxId: 'TRX-20261102-0021', timeoutMs: 2000 })]), quiet);
    await p.roundAll();
    return { p, ...(await exposition(p)) };
  };
  const expiry = 'h2h_probe_tls_cert_expiry_timestamp_seconds{target="sim"}';

  it('valid, trusted through a CA file: success, the expiry is the notAfter, the version is exported', async () => {
    const { p, text, m } = await probeOnce(sims.valid, { caFile: pki.caFile });
    for (const e of READ_ONLY_ENDPOINTS)
      assert.equal(
        m.get(`h2h_probe_success{target="sim",endpoint="${e}"}`),
        1,
        JSON.stringify(p.status.byTarget.get('sim')),
      );
    assert.equal(m.get(expiry), certs.valid.notAfter);
    assert.equal(m.get('h2h_probe_tls_version_info{target="sim",version="TLSv1.3"}'), 1);
    const status = p.status.byTarget.get('sim')?.['saldo-user']?.tls;
    assert.deepEqual(status, {
      version: 'TLSv1.3',
      verified: true,
      certExpiry: new Date(certs.valid.notAfter * 1000).toISOString(),
    });
    if (!hasPromtool) return assert.fail('promtool is not installed (.ci/run installs Debian prometheus)');
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal((r.stdout + r.stderr).trim(), '');
  });

  it('the same certificate without the CA file: reason tls (unknown authority), expiry still exported', async () => {
    const { p, m } = await probeOnce(sims.valid, undefined);
    assert.equal(m.get('h2h_probe_failures_total{target="sim",endpoint="saldo-user",reason="tls"}'), 1);
    assert.match(
      p.status.byTarget.get('sim')?.['saldo-user']?.message ?? '',
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i,
    );
    assert.equal(m.get(expiry), certs.valid.notAfter);
  });

  it('expired: reason tls with its cause, nothing sent, the expiry metric still exported (in the past)', async () => {
    const before = sims.expired.log.length;
    const { p, m } = await probeOnce(sims.expired, { caFile: pki.caFile });
    for (const e of READ_ONLY_ENDPOINTS) {
      assert.equal(m.get(`h2h_probe_success{target="sim",endpoint="${e}"}`), 0, e);
      assert.equal(m.get(`h2h_probe_failures_total{target="sim",endpoint="${e}",reason="tls"}`), 1, e);
    }
    const s = p.status.byTarget.get('sim')?.['saldo-user'];
    assert.equal(s?.reason, 'tls');
    assert.match(s?.message ?? '', /CERT_HAS_EXPIRED/);
    assert.equal(m.get(expiry), certs.expired.notAfter);
    assert.ok((m.get(expiry) ?? 0) < Date.now() / 1000, 'in the past');
    assert.equal(sims.expired.log.length, before, 'no request reached the server');
  });

  it('a certificate for another name: reason tls; with server_name set to that name it verifies', async () => {
    const wrong = await probeOnce(sims.wrongName, { caFile: pki.caFile });
    assert.equal(wrong.p.status.byTarget.get('sim')?.['saldo-user']?.reason, 'tls');
    assert.match(wrong.p.status.byTarget.get('sim')?.['saldo-user']?.message ?? '', /ERR_TLS_CERT_ALTNAME_INVALID/);
    assert.equal(wrong.m.get(expiry), certs.wrongName.notAfter);
    const named = await probeOnce(sims.wrongName, { caFile: pki.caFile, serverName: 'api.elsewhere.example' });
    assert.equal(named.m.get('h2h_probe_success{target="sim",endpoint="saldo-user"}'), 1);
  });

  it('self-signed without a CA: reason tls; insecure_skip_verify probes anyway and shows it unverified', async () => {
    const before = sims.self.log.length;
    const refused = await probeOnce(sims.self, undefined);
    assert.match(refused.p.status.byTarget.get('sim')?.['saldo-user']?.message ?? '', /DEPTH_ZERO_SELF_SIGNED_CERT/);
    assert.equal(refused.m.get(expiry), certs.self.notAfter);
    assert.equal(sims.self.log.length, before, 'nothing sent over an unverified connection');
    const skipped = await probeOnce(sims.self, { insecureSkipVerify: true });
    assert.equal(skipped.m.get('h2h_probe_success{target="sim",endpoint="saldo-user"}'), 1);
    assert.equal(skipped.m.get(expiry), certs.self.notAfter);
    assert.deepEqual(skipped.p.status.byTarget.get('sim')?.['saldo-user']?.tls, {
      version: 'TLSv1.3',
      verified: false,
      certExpiry: new Date(certs.self.notAfter * 1000).toISOString(),
      error: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    assert.ok(sims.self.log.length > before, 'the requests were sent');
  });

  it('the tls phase is the handshake, and first_byte is free of it', async () => {
    const opts = { method: 'POST' as const, timeoutMs: 3000, bodyCap: 1 << 20, historyLimit: 5 };
    const tls = { caFile: pki.caFile };
    // A slow handshake (the server's hello held 300 ms) and an instant answer ...
    const port = Number(new URL(sims.valid.url).port);
    const proxy = await slowHandshakeProxy(port, 300);
    try {
      const slowHello = await probeEndpoint(
        api,
        { name: 'x', baseUrl: `https://127.0.0.1:${proxy.port}`, apiKey: sims.valid.apiKey, tls },
        'saldo-user',
        opts,
      );
      assert.ok(slowHello.success, slowHello.message);
      assert.ok(slowHello.phases.tls >= 290, `tls ${slowHello.phases.tls} ms`);
      assert.ok(slowHello.phases.firstByte < 150, `first_byte ${slowHello.phases.firstByte} ms`);
    } finally {
      await proxy.close();
    }
    // ... and the reverse: an instant handshake and an answer 300 ms late.
    const late = await startSimulator({ tls: { cert: certs.valid.cert, key: certs.valid.key }, latencyMs: 300 });
    try {
      const slowAnswer = await probeEndpoint(
        api,
        { name: 'x', baseUrl: late.url, apiKey: late.apiKey, tls },
        'saldo-user',
        opts,
      );
      assert.ok(slowAnswer.success, slowAnswer.message);
      assert.ok(slowAnswer.phases.tls > 0 && slowAnswer.phases.tls < 150, `tls ${slowAnswer.phases.tls} ms`);
      assert.ok(slowAnswer.phases.firstByte >= 290, `first_byte ${slowAnswer.phases.firstByte} ms`);
      assert.equal(slowAnswer.phases.dns, 0, 'an IP address needs no name resolution');
    } finally {
      await late.close();
    }
  });

  it('h2h mock --tls-cert/--tls-key serves HTTPS; h2h probe --ca-file trusts it, a config file names it relative to itself', async () => {
    const mock = await startCli(['mock', '--tls-cert', certs.valid.certFile, '--tls-key', certs.valid.keyFile]);
    try {
      assert.match(mock.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const base = [
        'probe',
        '--once',
        '--base-url',
        mock.url,
        '--api-key',
        mock.apiKey,
        '--trx-id',
        'TRX-20261102-0021',
      ];
      const trusted = await runCli([...base, '--ca-file', pki.caFile]);
      assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
      const untrusted = await runCli(base);
      assert.equal(untrusted.code, 1);
      assert.match(untrusted.stdout, /FAIL tls: the certificate does not verify: UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
      assert.match(untrusted.stderr, /reason=tls .*UNABLE_TO_VERIFY_LEAF_SIGNATURE/, 'the log names the cause');
      writeFileSync(
        join(tmp, 'probe-tls.yaml'),
        `targets:\n  - name: tls\n    base_url: ${mock.url}\n    api_key_env: H2H_TLS_KEY\n    trx_id: TRX-20261102-0021\n    tls: {ca_file: ca.pem}\n`,
      );
      const fromFile = await runCli(['probe', '--once', '--config', join(tmp, 'probe-tls.yaml')], {
        env: { H2H_TLS_KEY: mock.apiKey },
        cwd: '/',
      });
      assert.equal(fromFile.code, 0, fromFile.stdout + fromFile.stderr);
      const missing = await runCli([...base, '--ca-file', join(tmp, 'no-such-ca.pem')]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--ca-file .*no-such-ca\.pem: no such file or not readable/);
    } finally {
      await mock.stop();
    }
    const half = await runCli(['mock', '--tls-cert', certs.valid.certFile]);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /--tls-cert and --tls-key go together/);
  });
});

describe('a schedule per target', () => {
  it('one target hangs; the other keeps its slots (lateness measured) and neither skips', async () => {
    const healthy = await startSimulator();
    const hung = await startSimulator({ fault: { name: 'hang' } });
    const file = join(tmp, 'two.yaml');
    writeFileSync(
      file,
      [
        "schedule: '* * * * * *'",
        'timeout: 800ms',
        'targets:',
        `  - {name: healthy, base_url: '${healthy.url}', api_key_env: K, trx_id: TRX-20261102-0021}`,
        `  - {name: hung, base_url: '${hung.url}', api_key_env: K, trx_id: TRX-20261102-0021}`,
        '',
      ].join('\n'),
    );
    const cfg = probeConfigOf(['--config', file], { K: healthy.apiKey });
    for (const t of cfg.targets) assert.ok(t.jitterMs >= 0 && t.jitterMs < 100, `${t.name} jitter ${t.jitterMs}`);
    const p = new Probe(api, cfg, quiet);
    const lateness: number[] = [];
    let seen = 0;
    p.start();
    try {
      // Watch 5 s: after each healthy check, read its lateness.
      const end = Date.now() + 5000;
      while (Date.now() < end) {
        const { m } = await exposition(p);
        const runs = m.get('h2h_probe_runs_total{target="healthy",endpoint="saldo-user"}') ?? 0;
        if (runs > seen) {
          seen = runs;
          lateness.push(m.get('h2h_probe_schedule_lateness_seconds{target="healthy"}') ?? Number.NaN);
        }
        await new Promise((r) => setTimeout(r, 40));
      }
      const { m } = await exposition(p);
      const runs = (t: string): number => m.get(`h2h_probe_runs_total{target="${t}",endpoint="saldo-user"}`) ?? 0;
      assert.ok(runs('healthy') >= 4, `healthy ran ${runs('healthy')} times in 5 s`);
      assert.ok(runs('hung') >= 4, `hung ran ${runs('hung')} times in 5 s`);
      assert.ok(
        (m.get('h2h_probe_failures_total{target="hung",endpoint="saldo-user",reason="timeout"}') ?? 0) >= 4,
        'the hung target timed out each time',
      );
      assert.equal(m.get('h2h_probe_success{target="healthy",endpoint="saldo-user"}'), 1);
      for (const t of ['healthy', 'hung']) {
        assert.equal(m.get(`h2h_probe_overlaps_total{target="${t}"}`), 0, `${t} overlaps`);
        assert.equal(m.get(`h2h_probe_timeout_seconds{target="${t}"}`), 0.8);
      }
      assert.ok(lateness.length >= 4, `${lateness.length} lateness readings`);
      // Were the hung target holding the schedule, a healthy round would start its 0.8 s timeout late; a loaded
      // runner (the suite runs three files at once on two cores) makes a round late by tens of milliseconds.
      assert.ok(Math.max(...lateness) < 0.3, `healthy rounds started late by ${lateness.join(', ')} s`);
    } finally {
      await p.stop();
      await healthy.close();
      await hung.close();
    }
  });

  it("each target's rounds must fit its own interval, or the config is refused with the reason", () => {
    const file = join(tmp, 'tight.yaml');
    writeFileSync(
      file,
      "targets:\n  - {name: a, base_url: 'http://127.0.0.1:1', api_key_env: K, schedule: '*/2 * * * * *', timeout: 3s}\n",
    );
    assert.throws(
      () => probeConfigOf(['--config', file], { K: 'k' }),
      /targets\[0\] \(a\): timeout 3000 ms must be shorter than the schedule's interval \(2000 ms for '\*\/2 \* \* \* \* \*'\)/,
    );
    writeFileSync(
      file,
      "timeout: 3s\ntargets:\n  - {name: a, base_url: 'http://127.0.0.1:1', api_key_env: K, schedule: '*/5 * * * * *'}\n  - {name: b, base_url: 'http://127.0.0.1:1', api_key_env: K, schedule: '*/10 * * * * *', timeout: 8s}\n",
    );
    const cfg = probeConfigOf(['--config', file], { K: 'k' });
    assert.deepEqual(
      cfg.targets.map((t) => [t.name, t.schedule, t.timeoutMs]),
      [
        ['a', '*/5 * * * * *', 3000],
        ['b', '*/10 * * * * *', 8000],
      ],
    );
    const again = probeConfigOf(['--config', file], { K: 'k' });
    assert.deepEqual(
      again.targets.map((t) => t.jitterMs),
      cfg.targets.map((t) => t.jitterMs),
      'the same jitter for the same name',
    );
    assert.ok((cfg.targets[0]?.jitterMs ?? -1) < 1000 && (cfg.targets[1]?.jitterMs ?? -1) < 1000);
  });
});

describe('balance freshness', () => {
  it('h2h_balance comes only from a fresh read; after a failed one it is absent and its timestamp ages', async () => {
    const sim = await startSimulator();
    try {
      const p = new Probe(api, config([targetFor(sim, { timeoutMs: 300 })]), quiet);
      await p.roundAll();
      const fresh = (await exposition(p)).m;
      assert.equal(fresh.get('h2h_balance{target="sim"}'), sim.state.saldo('demo'));
      const at = fresh.get('h2h_balance_timestamp_seconds{target="sim"}') ?? 0;
      assert.ok(Math.abs(at - Date.now() / 1000) < 5, `timestamp ${at}`);
      sim.setFault({ name: 'hang' });
      await p.roundAll();
      const stale = (await exposition(p)).m;
      assert.equal(stale.has('h2h_balance{target="sim"}'), false, 'no balance after a failed read');
      assert.equal(stale.get('h2h_balance_timestamp_seconds{target="sim"}'), at, 'the last fresh read, unchanged');
      sim.setFault({ name: 'saldo-as-string' });
      await p.roundAll();
      assert.equal((await exposition(p)).m.has('h2h_balance{target="sim"}'), false, 'a saldo that is not a number');
      sim.setFault(null);
      await p.roundAll();
      assert.equal((await exposition(p)).m.get('h2h_balance{target="sim"}'), sim.state.saldo('demo'));
    } finally {
      await sim.close();
    }
  });
});

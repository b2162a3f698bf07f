import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { everyByteWritten, NO_TARGET_ENV, runCli } from './helpers.ts';
import { hasTinyproxy, type ProxyServer, startTinyproxy } from './proxy-server.ts';
import { hasOpenssl, makePki } from './tls-certs.ts';

// Through a real forward proxy with basic auth (Debian's tinyproxy), as a corporate CI reaches its provider:
// HTTP by absolute URL, HTTPS by CONNECT, the proxy from the environment (curl's variables) or the probe's
// per-target proxy_url, NO_PROXY alone deciding what goes direct.

const KEY = 'sk-proxy-run-4d1f0a9b';
const PASSWORD = 'pr0xyPass58ce1Q';
const skip = !hasTinyproxy
  ? 'tinyproxy is not installed (.ci/run installs it)'
  : !hasOpenssl
    ? 'openssl is not installed'
    : false;

describe('behind a proxy: h2h contract and h2h probe through tinyproxy with basic auth', { skip }, () => {
  let proxy: ProxyServer;
  let plain: Simulator;
  let secure: Simulator;
  let caFile: string;
  const dir = mkdtempSync(join(tmpdir(), 'h2h-proxy-test-'));
  const outputs: string[] = [];
  /** Environment of a run: no proxy inherited, no target; the test CA trusted (as a user's corporate CA). */
  const envWith = (vars: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    ...NO_TARGET_ENV,
    HTTPS_PROXY: '',
    HTTP_PROXY: '',
    https_proxy: '',
    http_proxy: '',
    ALL_PROXY: '',
    all_proxy: '',
    NO_PROXY: '',
    no_proxy: '',
    NODE_EXTRA_CA_CERTS: caFile,
    ...vars,
  });
  const cli = async (args: string[], vars: NodeJS.ProcessEnv) => {
    const r = await runCli(args, { env: envWith(vars), timeoutMs: 120_000 });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const since = (n: number): string[] => proxy.requests().slice(n);

  before(async () => {
    proxy = await startTinyproxy('h2hci', PASSWORD);
    const pki = makePki(dir);
    caFile = pki.caFile;
    const cert = pki.issue('sim', {
      sans: ['IP:127.0.0.1'],
      notBefore: new Date(Date.now() - 3_600_000),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    plain = await startSimulator({ apiKey: KEY });
    secure = await startSimulator({ apiKey: KEY, tls: { cert: cert.cert, key: cert.key } });
  });

  after(async () => {
    await proxy?.stop();
    await Promise.all([plain?.close(), secure?.close()]);
  });

  it('h2h contract over HTTP_PROXY reaches the HTTP simulator and passes; the proxy logged every request', async () => {
    const before = proxy.requests().length;
    const reports = join(dir, 'http');
    const r = await cli(
      ['contract', '--base-url', plain.url, '--api-key', KEY, '--grep', 'BAL|HIS-1', '--reports-dir', reports],
      { HTTP_PROXY: proxy.url },
    );
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    const seen = since(before);
    const sent = [...plain.log.entries()].length;
    assert.ok(seen.length >= 10, `${seen.length} requests through the proxy`);
    assert.equal(seen.length, sent, 'every request the simulator got came through the proxy');
    assert.ok(seen.some((l) => l.startsWith(`POST ${plain.url}/api/saldo-user `)));
    assert.ok(seen.some((l) => l.startsWith(`GET ${plain.url}/api/history-transaksi?`)));
    for (const [, bytes] of await everyByteWritten(reports)) outputs.push(bytes.toString('latin1'));
  });

  it('h2h contract over HTTPS_PROXY reaches the HTTPS simulator by CONNECT and passes', async () => {
    const before = proxy.requests().length;
    const r = await cli(
      ['contract', '--base-url', secure.url, '--api-key', KEY, '--grep', 'BAL', '--reports-dir', join(dir, 'https')],
      { HTTPS_PROXY: proxy.url },
    );
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    const seen = since(before);
    const host = new URL(secure.url).host;
    assert.ok(seen.length >= 4, `${seen.length} tunnels`);
    assert.ok(
      seen.every((l) => l === `CONNECT ${host} HTTP/1.1`),
      `only tunnels to the target, no URL (so no key) in the proxy's log: ${seen.slice(0, 3).join('; ')}`,
    );
  });

  it('h2h probe --once through both: proxy_url for one target, HTTPS_PROXY for the other; phases stay apart', async () => {
    const before = proxy.requests().length;
    const config = join(dir, 'probe.yaml');
    writeFileSync(
      config,
      [
        'targets:',
        `  - {name: plain, base_url: '${plain.url}', api_key_env: PROXY_KEY, proxy_url: '${proxy.url}'}`,
        `  - {name: secure, base_url: '${secure.url}', api_key_env: PROXY_KEY}`,
        '',
      ].join('\n'),
    );
    const r = await cli(['probe', '--once', '--json', '--config', config], {
      HTTPS_PROXY: proxy.url,
      PROXY_KEY: KEY,
    });
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    const status = JSON.parse(r.stdout) as {
      targets: Record<string, Record<string, { success: boolean; phasesMs: Record<string, number> }>>;
    };
    assert.deepEqual(Object.keys(status.targets).sort(), ['plain', 'secure']);
    for (const [name, probes] of Object.entries(status.targets))
      for (const [endpoint, p] of Object.entries(probes)) {
        assert.ok(p.success, `${name} ${endpoint}`);
        if (name === 'secure') {
          assert.ok((p.phasesMs.connect ?? 0) > 0, 'the proxy connection and its CONNECT are the connect phase');
          assert.ok((p.phasesMs.tls ?? 0) > 0, "the target's handshake is the tls phase");
        } else assert.equal(p.phasesMs.tls, 0);
      }
    const seen = since(before);
    assert.equal(seen.filter((l) => l.startsWith(`POST ${plain.url}/api/`)).length, 3, seen.join('\n'));
    assert.equal(seen.filter((l) => l.startsWith(`CONNECT ${new URL(secure.url).host}`)).length, 3);
  });

  it('NO_PROXY alone decides what goes direct, loopback included', async () => {
    const before = proxy.requests().length;
    const direct = await cli(['probe', '--once', '--base-url', plain.url, '--api-key', KEY], {
      HTTP_PROXY: proxy.url,
      NO_PROXY: 'example.org,127.0.0.1',
    });
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(since(before).length, 0, 'nothing through the proxy');
    const proxied = await cli(['probe', '--once', '--base-url', plain.url, '--api-key', KEY], {
      http_proxy: proxy.url,
      no_proxy: 'localhost',
    });
    assert.equal(proxied.code, 0, proxied.stderr);
    assert.ok(since(before).length >= 3, 'loopback goes through the proxy when NO_PROXY does not list it');
  });

  it('a proxy that refuses: exit 2 naming the proxy, its password nowhere, not a contract failure', async () => {
    const host = `127.0.0.1:${proxy.port}`;
    for (const [vars, url] of [
      [{ HTTP_PROXY: proxy.wrongUrl }, plain.url],
      [{ HTTPS_PROXY: proxy.wrongUrl }, secure.url],
      [{ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }, secure.url],
    ] as const) {
      const r = await cli(
        ['contract', '--base-url', url, '--api-key', KEY, '--reports-dir', join(dir, 'refused')],
        vars,
      );
      assert.equal(r.code, 2, `${JSON.stringify(vars)}: ${r.stdout}${r.stderr}`);
      assert.ok(r.stderr.includes(host), `the proxy named: ${r.stderr}`);
      assert.match(r.stderr, /proxy/);
    }
    const probe = await cli(['probe', '--once', '--base-url', secure.url, '--api-key', KEY], {
      HTTPS_PROXY: proxy.wrongUrl,
    });
    assert.equal(probe.code, 1);
    assert.match(probe.stdout, /connect: proxy http:\/\/.*127\.0\.0\.1:\d+ refused the tunnel/);
    const bad = await cli(['contract', '--base-url', plain.url, '--api-key', KEY], {
      HTTP_PROXY: `socks5://h2hci:${PASSWORD}@127.0.0.1:1080`,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /HTTP_PROXY: .*only http:\/\/ proxies are supported/);
  });

  it("the proxy's password and the key appear in no output of these runs", () => {
    assert.ok(outputs.length > 10);
    for (const needle of [PASSWORD, encodeURIComponent(PASSWORD), `wrong-${PASSWORD}`, KEY])
      assert.ok(!outputs.some((o) => o.includes(needle)), `${needle} found`);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContractSummary } from '../src/report/summary.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { gateInProcess, listenLocal, NO_TARGET_ENV, runCli, writeTargetFlags } from './helpers.ts';
import { hasOpenssl, makePki } from './tls-certs.ts';

// A user's first wrong turns against a real target: a base URL that is not the API, a wrong path prefix, a
// private CA. Each is told apart, named, and exits 2 within seconds (or, given the right setting, passes).

const tmp = mkdtempSync(join(tmpdir(), 'h2h-wrong-turns-'));
let runs = 0;
const reports = (): string => join(tmp, `r${++runs}`);

/** Any other web server: HTML 404 pages for every path. */
async function htmlServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>');
  });
  return listenLocal(server);
}

/**
 * A server that answers GET with an HTML page of `status` and resets every POST before answering, as a server
 * (or a proxy refusing credentials) that answers before reading a body and closes often does.
 */
async function resettingServer(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      req.socket.resetAndDestroy();
      return;
    }
    req.resume();
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE html><html><body>Unauthorized</body></html>');
  });
  return listenLocal(server);
}

/** `h2h contract` timed from start to exit. */
async function timedGate(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string; ms: number }> {
  const t0 = performance.now();
  const r = await runCli(['contract', '--reports-dir', reports(), ...args], { env: NO_TARGET_ENV, timeoutMs: 60_000 });
  return { ...r, ms: performance.now() - t0 };
}

describe('a base URL that is not the API is told from a refused key', () => {
  let html: Awaited<ReturnType<typeof htmlServer>>;
  let sim: Simulator;
  let legal: Simulator;
  before(async () => {
    html = await htmlServer();
    sim = await startSimulator();
    legal = await startSimulator({ reading: parseReading('legal') });
  });
  after(async () => {
    await Promise.all([html.close(), sim.close(), legal.close()]);
  });

  it('a web server answering HTML 404 pages: exit 2 within 10 s, "does not look like the H2H API", the URL called', async () => {
    const r = await timedGate(['--base-url', html.url, '--api-key', 'some-key-1234']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.ok(r.ms < 10_000, `${Math.round(r.ms)} ms`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /this does not look like the H2H API: saldo-user answered HTTP 404 \(text\/html/);
    assert.ok(r.stderr.includes(`check --base-url (called ${html.url}/api/saldo-user)`), r.stderr);
    assert.doesNotMatch(r.stderr, /key was refused/);
    assert.equal(r.stdout, '');
  });

  it('an HTML page on GET and a reset POST: still "does not look like the H2H API", the reset named', async () => {
    const resetting = await resettingServer(404);
    try {
      const r = await timedGate(['--base-url', resetting.url, '--api-key', 'some-key-1234']);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(
        r.stderr,
        /does not look like the H2H API: saldo-user answered HTTP 404 .* on GET \(POST: no answer, reset\)/,
      );
    } finally {
      await resetting.close();
    }
  });

  it('a proxy refusing with 401 text/html on GET and a reset on POST: exit 2 naming the proxy', async () => {
    const proxy = await resettingServer(401);
    try {
      const r = await runCli(['contract', '--reports-dir', reports(), '--base-url', sim.url, '--api-key', sim.apiKey], {
        env: { ...NO_TARGET_ENV, HTTP_PROXY: proxy.url, NO_PROXY: '', no_proxy: '', http_proxy: '' },
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.ok(r.stderr.includes(`through proxy ${proxy.url}`), r.stderr);
      assert.match(r.stderr, /HTTP 401 text\/html \(POST: no answer, reset\), not JSON: the proxy refused/);
    } finally {
      await proxy.close();
    }
  });

  for (const [name, target] of [
    ['the reference reading (404 NOT_FOUND)', () => sim],
    ['a reading that refuses with HTTP 200 and its own words', () => legal],
  ] as const)
    it(`a wrong path prefix (.../api), ${name}: exit 2 within 10 s, "check --base-url", the URL called, never "key refused"`, async () => {
      const s = target();
      const r = await timedGate(['--base-url', `${s.url}/api`, '--api-key', s.apiKey]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.ok(r.ms < 10_000, `${Math.round(r.ms)} ms`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(r.stderr.includes(`check --base-url (called ${s.url}/api/api/saldo-user)`), r.stderr);
      assert.doesNotMatch(r.stderr, /refused by/);
    });

  it('a wrong key at the right URL is still "the API key was refused", with the URL called', async () => {
    const r = await timedGate(['--base-url', sim.url, '--api-key', 'not-the-key-1234']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /the API key was refused by .* called http:\/\/127\.0\.0\.1:\d+\/api\/saldo-user\)/);
  });

  it('h2h probe --once names the URL it called, and a 404 is no refusal', async () => {
    const r = await runCli(['probe', '--once', '--base-url', `${sim.url}/api`, '--api-key', sim.apiKey], {
      env: NO_TARGET_ENV,
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `saldo-user .* FAIL http_status: HTTP 404: no endpoint at ${sim.url}/api/api/saldo-user: is the base URL right\\?`,
      ),
    );
    assert.doesNotMatch(r.stdout, /FAIL refused/);
    const html404 = await runCli(['probe', '--once', '--base-url', html.url, '--api-key', 'some-key-1234'], {
      env: NO_TARGET_ENV,
      timeoutMs: 30_000,
    });
    assert.ok(html404.stdout.includes(`${html.url}/api/saldo-user`), html404.stdout);
  });
});

describe('HTTPS with a private CA: --ca-file for the gate and replay as for the probe', { skip: !hasOpenssl }, () => {
  let sim: Simulator;
  let caFile: string;
  before(async () => {
    const pki = makePki(mkdtempSync(join(tmpdir(), 'h2h-gate-tls-')));
    const cert = pki.issue('sim', {
      sans: ['IP:127.0.0.1'],
      notBefore: new Date(Date.now() - 3_600_000),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    caFile = pki.caFile;
    sim = await startSimulator({ tls: { cert: cert.cert, key: cert.key } });
  });
  after(async () => {
    await sim.close();
  });

  it('without it: exit 2, the certificate error and the setting that would help', async () => {
    const r = await timedGate(['--base-url', sim.url, '--api-key', sim.apiKey]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /the certificate does not verify: UNABLE_TO_VERIFY_LEAF_SIGNATURE: .*--ca-file PEM/);
    assert.match(r.stderr, /NODE_EXTRA_CA_CERTS/);
  });

  it('with --ca-file the gate passes against the HTTPS simulator, writes included', async () => {
    // Every scenario over HTTPS (kept connections included) in process, trusting the CA as --ca-file does; through
    // the CLI, reads and invites, so the flag is seen to reach Playwright's workers.
    const { summary: whole } = await gateInProcess(sim, { tls: { caFile } });
    assert.equal(whole.result, 'held', JSON.stringify(whole.clauses.filter((c) => c.status !== 'held')));
    assert.ok(sim.log.length > 2000, `${sim.log.length} requests over HTTPS`);
    const dir = reports();
    const args = [...writeTargetFlags(sim), '--ca-file', caFile, '--grep', '^(INV-1|BAL-1|HIS-1) '];
    const r = await runCli(['contract', '--reports-dir', dir, ...args], { env: NO_TARGET_ENV, timeoutMs: 180_000 });
    assert.equal(r.code, 0, (r.stdout + r.stderr).slice(-3000));
    const summary = JSON.parse(readFileSync(join(dir, 'contract-summary.json'), 'utf8')) as ContractSummary;
    assert.equal(summary.result, 'held');
    for (const id of ['INV-1', 'BAL-1', 'HIS-1'])
      assert.ok((summary.clauses.find((c) => c.id === id)?.passed ?? 0) > 0, `${id} judged over HTTPS`);
  });

  it('--insecure-skip-verify sends anyway, with a loud warning; H2H_CA_FILE works as the flag', async () => {
    const insecure = await timedGate([
      '--base-url',
      sim.url,
      '--api-key',
      sim.apiKey,
      '--grep',
      'BAL-1',
      '--insecure-skip-verify',
    ]);
    assert.equal(insecure.code, 0, insecure.stderr);
    assert.match(insecure.stderr, /WARNING: --insecure-skip-verify: the target's certificate is not verified/);
    const env = await runCli(
      ['contract', '--reports-dir', reports(), '--base-url', sim.url, '--api-key', sim.apiKey, '--grep', 'BAL-1'],
      {
        env: { ...NO_TARGET_ENV, H2H_CA_FILE: caFile },
        timeoutMs: 60_000,
      },
    );
    assert.equal(env.code, 0, env.stderr);
  });
});

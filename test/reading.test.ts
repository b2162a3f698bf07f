import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareReadings, type LearnedPoint, readingYaml } from '../src/reading/index.ts';
import type { ContractSummary } from '../src/report/summary.ts';
import { parseReading, type Reading, readingFromFile } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { gateInProcess, NO_TARGET_ENV, runCli, violated } from './helpers.ts';

// The provider's reading, learned by the gate (src/reading/), served back by the simulator, and compared
// with an earlier run (--baseline). The covering set's round trip is in gate-verdicts.test.ts.

const tmp = mkdtempSync(join(tmpdir(), 'h2h-reading-'));

const learned = (s: ContractSummary): Record<string, string> =>
  Object.fromEntries(s.reading.filter((p) => p.value !== undefined).map((p) => [p.knob, p.value as string]));

/** The learned reading as a file `h2h mock --legal-profile` reads, and that file read back. */
function writeAndRead(points: readonly LearnedPoint[], name: string): Reading {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(file, readingYaml(points, {}, { from: 'a test', at: '2026-01-01T00:00:00Z' }));
  return readingFromFile(file);
}

interface Call {
  method: string;
  path: string;
  contentType?: string;
  body: Buffer;
}

/** A loopback HTTP proxy that forwards every request to `origin` as it came, and records it. */
async function recordingProxy(origin: string): Promise<{ url: string; calls: Call[]; close(): Promise<void> }> {
  const calls: Call[] = [];
  const target = new URL(origin);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      calls.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        body,
      });
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** An answer with what differs between two runs by nature (IDs the server makes, dates, slots) blanked. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, /date|time|slot|^id$/i.test(k) ? '<varies>' : comparable(v)]),
  );
}

async function send(base: string, call: Call): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${call.path}`, {
    method: call.method,
    ...(call.body.length ? { body: new Uint8Array(call.body) } : {}),
    headers: call.contentType ? { 'content-type': call.contentType } : {},
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

describe('the provider reading, learned and served back', () => {
  it('a learned reading played back by the simulator is learned again the same', async () => {
    const reading = parseReading(
      'order=oldest,max-limit=10,refusal-http=200,refusal-words=lower,message=present,member-form=08,extra=everywhere,content-type=plain,saldo=big,repeat=replay,conflict=alias,content-coding=gzip,q-case=exact',
    );
    const first = await startSimulator({ reading });
    let once: ContractSummary;
    try {
      once = (await gateInProcess(first, { settleMs: 2000 })).summary;
    } finally {
      await first.close();
    }
    assert.deepEqual(violated(once), []);
    const served = writeAndRead(once.reading, 'once');
    const second = await startSimulator({ reading: served });
    try {
      const twice = (await gateInProcess(second, { settleMs: 2000 })).summary;
      assert.deepEqual(learned(twice), learned(once));
      // What it learned is what the first simulator played.
      for (const [knob, value] of Object.entries(learned(once)))
        if (knob !== 'default-limit') assert.equal(value, reading[knob as keyof Reading], knob);
    } finally {
      await second.close();
    }
  });

  it('served by the simulator, the learned reading answers the gate’s own requests as the target did, field for field', async () => {
    // 4xx refusals in lower-case words, limit clamped at 25, oldest first, repeated trx_ids replayed.
    const X = parseReading('refusal-http=4xx,refusal-words=lower,max-limit=25,order=oldest,repeat=replay');
    const target = await startSimulator({ reading: X });
    const proxy = await recordingProxy(new URL(target.url).origin);
    const base = proxy.url + new URL(target.url).pathname.replace(/\/$/, '');
    let summary: ContractSummary;
    try {
      // More records than the clamp: invites of the suite's own numbers, through the proxy (recorded too).
      const s = target.fixture.suite;
      for (let i = 0; i < 8; i++) {
        const q = new URLSearchParams({
          api_key: target.apiKey,
          trx_id: `SETUP-${i}`,
          product_code: s.product,
          msisdn: String(s.msisdns[i % s.msisdns.length]),
          kind: s.kind,
        });
        const r = await fetch(`${base}/api/invite-member?${q}`);
        assert.equal(((await r.json()) as { ok?: unknown }).ok, true, 'a setup invite is carried out');
      }
      summary = (await gateInProcess(target, { settleMs: 2000 }, base)).summary;
    } finally {
      await proxy.close();
      await target.close();
    }
    assert.deepEqual(violated(summary), []);
    const got = learned(summary);
    for (const knob of ['refusal-http', 'refusal-words', 'max-limit', 'order', 'repeat'] as const)
      assert.equal(got[knob], X[knob], `${knob} learned`);
    const served = writeAndRead(summary.reading, 'field-for-field');
    // The same requests, in the same order, to the target afresh and to the learned reading.
    const again = await startSimulator({ reading: X });
    const mock = await startSimulator({ reading: served });
    try {
      let compared = 0;
      for (const call of proxy.calls) {
        const a = await send(new URL(again.url).origin, call);
        const b = await send(new URL(mock.url).origin, call);
        assert.equal(b.status, a.status, `${call.method} ${call.path.replace(/api_key=[^&]*/, 'api_key=***')}`);
        assert.deepEqual(comparable(b.body), comparable(a.body), `${call.method} ${call.path.slice(0, 60)}`);
        compared++;
      }
      assert.ok(compared > 500, `${compared} requests compared`);
    } finally {
      await again.close();
      await mock.close();
    }
  });

  it('a reading file with a misspelled kind of refusal is refused naming it, with the kind it most likely meant', () => {
    const file = join(tmp, 'misspelled.yaml');
    writeFileSync(
      file,
      'version: 2\nrefusals:\n  wrong-kee:\n    http: 401\n    status: X\n    fields: {}\n    seen: 1\n    evidence: {request: a, answer: b}\n',
    );
    assert.throws(() => readingFromFile(file), /\$\.refusals: unknown field 'wrong-kee'; did you mean 'wrong-key'\?/);
  });

  it('precedence changes only where a run saw a clear order and the other the reverse', () => {
    const run = (seen: string[]) => ({ reading: [], vocabulary: { 'precedence-seen': seen } });
    const changes = (a: string[], b: string[]): string[] =>
      compareReadings(run(a), run(b)).changes.map((c) => `${c.grade}: ${c.point} ${c.change}`);
    // Seen both ways as often (a tie) says nothing; seen in one run only is no change.
    assert.deepEqual(
      changes(
        ['malformed-msisdn>unknown-product', 'unknown-product>malformed-msisdn'],
        ['unknown-product>malformed-msisdn'],
      ),
      [],
    );
    assert.deepEqual(changes(['wrong-key>malformed-msisdn'], []), []);
    assert.deepEqual(changes(['wrong-key>malformed-msisdn'], ['malformed-msisdn>wrong-key']), [
      'warning: precedence wrong-key > malformed-msisdn -> malformed-msisdn > wrong-key',
    ]);
  });

  it('--baseline names exactly the knob that changed; --fail-on-change exits 1 on it', async () => {
    const some = ['--grep', 'AUTH-1 saldo-user GET'];
    const first = join(tmp, 'baseline-1');
    const r1 = await runCli(['contract', '--reports-dir', first, ...some], { env: NO_TARGET_ENV, timeoutMs: 120_000 });
    assert.equal(r1.code, 0, r1.stderr.slice(-2000));
    assert.match(readFileSync(join(first, 'provider-reading.yaml'), 'utf8'), /^refusal-words: "upper"$/m);
    const baseline = join(first, 'contract-summary.json');
    const second = join(tmp, 'baseline-2');
    const args = ['contract', '--reports-dir', second, ...some, '--simulator-legal', 'refusal-words=lower'];
    const r2 = await runCli([...args, '--baseline', baseline], { env: NO_TARGET_ENV, timeoutMs: 120_000 });
    assert.equal(r2.code, 0, 'a changed reading alone is not a violation');
    const s2 = JSON.parse(readFileSync(join(second, 'contract-summary.json'), 'utf8')) as ContractSummary;
    // The knob, and each refusal word it changed (a client switches on those words: breaking), nothing else.
    const changes = (s2.sinceBaseline?.reading ?? []).map((c) => `${c.grade}: ${c.point} ${c.change}`);
    assert.ok(
      changes.some((c) => /^\w+: refusal-words upper -> lower$/.test(c)),
      changes.join('; '),
    );
    for (const c of changes.filter((x) => !/refusal-words/.test(x))) {
      const m = /^breaking: refusals\.[\w-]+(?: \([\w-]+\))?\.status (\w+) -> (\w+)$/.exec(c);
      assert.ok(m && m[2] === m[1]?.toLowerCase(), `only refusal words, lowered: ${c}`);
    }
    assert.deepEqual(s2.sinceBaseline?.newlyViolated, []);
    assert.match(r2.stdout, /## Since the baseline[\s\S]*refusal-words upper -> lower/);
    const r3 = await runCli([...args, '--baseline', baseline, '--fail-on-change', 'breaking'], {
      env: NO_TARGET_ENV,
      timeoutMs: 120_000,
    });
    assert.equal(r3.code, 1, r3.stderr.slice(-2000));
    assert.match(r3.stderr, /the provider reading changed since .*--fail-on-change/);
    // The reading file itself is a baseline too: the changed reading against it fails as against the summary.
    const readingFile = join(first, 'provider-reading.yaml');
    const r5 = await runCli([...args, '--baseline', readingFile, '--fail-on-change', 'breaking'], {
      env: NO_TARGET_ENV,
      timeoutMs: 120_000,
    });
    assert.equal(r5.code, 1, r5.stderr.slice(-2000));
    assert.match(r5.stdout, /## Since the baseline[\s\S]*refusal-words upper -> lower/);
    // The same reading again, against the reading file: no change at any grade, so --fail-on-change info passes.
    const r4 = await runCli(
      [
        'contract',
        '--reports-dir',
        join(tmp, 'baseline-3'),
        ...some,
        '--baseline',
        readingFile,
        '--fail-on-change',
        'info',
      ],
      { env: NO_TARGET_ENV, timeoutMs: 120_000 },
    );
    assert.equal(r4.code, 0, `${r4.stdout.slice(-2000)}\n${r4.stderr.slice(-2000)}`);
    const bad = await runCli(['contract', ...some, '--baseline', join(tmp, 'nope.json')], { env: NO_TARGET_ENV });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--baseline .*nope\.json: no such file/);
    const neither = join(tmp, 'neither.json');
    writeFileSync(neither, '[1, 2]');
    const odd = await runCli(['contract', ...some, '--baseline', neither], { env: NO_TARGET_ENV });
    assert.equal(odd.code, 2);
    assert.match(odd.stderr, /neither a contract-summary\.json .* nor a provider-reading\.yaml/);
  });
});

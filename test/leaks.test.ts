import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadApiModel } from '../src/openapi/load.ts';
import { nearMissKeys } from '../src/plan/generators/cases.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { contractConfigOf, everyByteWritten, runCli, startCli } from './helpers.ts';
import { startTinyproxy } from './proxy-server.ts';

// The secrets: a distinctive key, a key of digits only (it travels as a JSON number too), and the password of a
// base URL with userinfo.
const KEY = 'LEAKk3y-9f2c71aa5e-distinct';
const NUM_KEY = '918273645501';
const PASSWORD = 'leakpass-77c1Q';
/** The password of a forward proxy (HTTP_PROXY, and a probe target's proxy_url). */
const PROXY_PASSWORD = 'leakproxy-3be9W';

/** Every occurrence of a secret, in every encoding an output could give it. */
function needlesOf(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    ...nearMissKeys(secret)
      .map((k) => String(k.value))
      .filter((v) => v.length >= 8 && v !== secret.slice(0, v.length)),
  ];
}

/** The reads of the balance and every near miss of the key, on every endpoint by both methods. */
const SOME = 'BAL-1|near misses of the key';

interface Output {
  what: string;
  bytes: Buffer | string;
}

/**
 * Runs every command that writes, with the secrets, and returns everything they wrote: console, reports (the HTML
 * report's archive opened), metrics, status pages, logs, debug output, the simulator's log.
 */
async function everyOutput(
  env: NodeJS.ProcessEnv,
  a: Simulator,
  n: Simulator,
  f: Simulator,
  grep?: string,
): Promise<Output[]> {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-leaks-'));
  const out: Output[] = [];
  const keep = (what: string, r: { stdout: string; stderr: string }): void => {
    out.push({ what: `${what} stdout`, bytes: r.stdout }, { what: `${what} stderr`, bytes: r.stderr });
  };
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, `${KEY}\n`);
  const opts = { env, timeoutMs: 180_000 };
  const reports = async (what: string, d: string): Promise<void> => {
    for (const [p, b] of await everyByteWritten(d)) out.push({ what: `${what} ${p}`, bytes: b });
  };

  // h2h contract: failing, clean, with a numeric key, and against a URL with userinfo. The failing run runs every
  // scenario (every near miss of the key, every attachment, passed and failed); the clean one (the key read from a
  // file) writes every report of a run that holds from the balance reads and the near misses of the key; the
  // numeric key, which differs only in how the key travels, runs the scenarios that send it both ways (GET text,
  // POST a JSON number) and its near misses. Playwright starts a new worker after every failed scenario: the fault
  // fails four, not every one it could; and the failing run starts two workers, not four (a loopback target).
  const only = (g: string | undefined): string[] => (g ? ['--grep', g] : []);
  const contracts: [string, string[], number][] = [
    ['contract clean', ['--base-url', a.url, '--api-key-file', keyFile, ...only(grep ?? SOME)], 0],
    ['contract failing', ['--base-url', f.url, '--api-key', KEY, '--concurrency', '2', ...only(grep)], 1],
    ['contract numeric key', ['--base-url', n.url, '--api-key', NUM_KEY, ...only(grep ?? `ENV-2|${SOME}`)], 0],
  ];
  for (const [i, [what, args, code]] of contracts.entries()) {
    // With a grep (the redaction-off control), the failing run alone: the other two differ only in how the key
    // travels, which the probe and the mock show there too.
    if (grep && what !== 'contract failing') continue;
    const d = join(dir, `r${i + 1}`);
    const r = await runCli(['contract', ...args, '--reports-dir', d], opts);
    assert.equal(r.code, code, `${what}\n${r.stdout}${r.stderr}`);
    keep(what, r);
    await reports(what, d);
  }
  const userinfo = `http://leakuser:${PASSWORD}@${new URL(a.url).host}`;
  const refused = await runCli(
    ['contract', '--base-url', userinfo, '--api-key', KEY, '--reports-dir', join(dir, 'r4')],
    opts,
  );
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /base URL must not carry a user name or password \(user:password@\)/);
  keep('contract userinfo', refused);

  // h2h replay of the failing run's saved cases.
  const replay = await runCli(
    ['replay', '--reports-dir', join(dir, 'r2'), '--base-url', f.url, '--api-key', KEY],
    opts,
  );
  keep('replay', replay);

  // h2h validate of a captured exchange that holds the key (as a string and as a number).
  const captured = join(dir, 'captured.json');
  writeFileSync(
    captured,
    JSON.stringify({
      request: { method: 'GET', params: { api_key: KEY, key: Number(NUM_KEY) } },
      response: { status: 200, body: { ok: true, status: 'SUCCESS', saldo: `${KEY} ${NUM_KEY}` } },
    }),
  );
  for (const extra of [[], ['--json']])
    keep(`validate ${extra}`, await runCli(['validate', 'saldo-user', captured, ...extra], opts));

  // h2h probe: --once, and long-running with /metrics, /status, /probe debug output and its logs (GET: the key is
  // in every URL it sends).
  keep('probe --once', await runCli(['probe', '--once', '--json', '--base-url', a.url, '--api-key', KEY], opts));
  keep('probe userinfo', await runCli(['probe', '--once', '--base-url', userinfo, '--api-key', KEY], opts));

  // Through a forward proxy with basic auth: accepted, and refused (a wrong password, itself a secret).
  const proxy = await startTinyproxy('leakuser', PROXY_PASSWORD);
  try {
    const through = { ...opts, env: { ...env, HTTP_PROXY: proxy.url } };
    keep('probe via proxy', await runCli(['probe', '--once', '--base-url', a.url, '--api-key', KEY], through));
    const wrong = { ...opts, env: { ...env, HTTP_PROXY: proxy.wrongUrl } };
    const refusedByProxy = await runCli(['contract', '--base-url', a.url, '--api-key', KEY], wrong);
    assert.equal(refusedByProxy.code, 2, refusedByProxy.stderr);
    keep('contract via refusing proxy', refusedByProxy);
    keep('probe via refusing proxy', await runCli(['probe', '--once', '--base-url', a.url, '--api-key', KEY], wrong));
  } finally {
    await proxy.stop();
  }
  const probeYaml = join(dir, 'probe.yaml');
  writeFileSync(
    probeYaml,
    [
      "schedule: '* * * * * *'",
      'timeout: 800ms',
      'method: GET',
      'log_format: json',
      'targets:',
      `  - {name: good, base_url: '${a.url}', api_key_env: LEAK_KEY}`,
      `  - {name: bad, base_url: '${f.url}', api_key_file: key}`,
      `  - {name: digits, base_url: '${n.url}', api_key_env: LEAK_NUM_KEY}`,
      // A proxy that is not there: its failures name it, password hidden, in the logs, /status and /probe.
      `  - {name: viaproxy, base_url: '${a.url}', api_key_env: LEAK_KEY, proxy_url: 'http://leakuser:${PROXY_PASSWORD}@127.0.0.1:9'}`,
      '',
    ].join('\n'),
  );
  const probe = await startCli(['probe', '--config', probeYaml, '--listen', '127.0.0.1:0'], /^H2H_PROBE_URL=(\S+)$/m, {
    ...env,
    LEAK_KEY: KEY,
    LEAK_NUM_KEY: NUM_KEY,
  });
  try {
    await new Promise((r) => setTimeout(r, 2500));
    for (const path of [
      '/metrics',
      '/status',
      '/healthz',
      '/probe?target=good&debug=true',
      '/probe?target=bad&debug=true',
      '/probe?target=digits&debug=true',
      '/probe?target=viaproxy&debug=true',
      `/probe?target=good&api_key=${KEY}`,
      `/probe?target=${KEY}`,
    ])
      out.push({ what: `probe ${path.slice(0, 30)}`, bytes: await (await fetch(`${probe.url}${path}`)).text() });
  } finally {
    await probe.stop();
  }
  keep('probe', { stdout: probe.stdout(), stderr: probe.stderr() });

  // h2h mock: its console and its request log, after requests that carry the key it was given under every
  // parameter name of every endpoint (a key sent as `code` or `limit` by mistake is still the key), by GET and
  // POST, as text and, the numeric key, as a JSON number.
  for (const [key, values] of [
    [KEY, [KEY]],
    [NUM_KEY, [NUM_KEY, Number(NUM_KEY)]],
  ] as const) {
    const mock = await startCli(['mock', '--api-key', key], undefined, env);
    try {
      await fetch(`${mock.url}/api/saldo-user?api_key=${key}`);
      for (const [endpoint, op] of loadApiModel().operations)
        for (const name of op.params.flatMap((p) => [p.name, ...p.aliases])) {
          await fetch(`${mock.url}/api/${endpoint}?${new URLSearchParams({ [name]: key })}`);
          for (const value of values)
            await fetch(`${mock.url}/api/${endpoint}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ api_key: key, [name]: value }),
            });
        }
      out.push({
        what: `mock ${key.slice(0, 4)} /__sim/log`,
        bytes: await (await fetch(`${mock.url}/__sim/log`)).text(),
      });
    } finally {
      await mock.stop();
    }
    keep(`mock ${key.slice(0, 4)}`, { stdout: mock.stdout(), stderr: mock.stderr() });
  }
  return out;
}

function hits(outputs: Output[], secrets: string[], plain: string[] = []): string[] {
  const found: string[] = [];
  for (const o of outputs) {
    const text = Buffer.isBuffer(o.bytes) ? o.bytes.toString('latin1') : o.bytes;
    for (const needle of [...secrets.flatMap(needlesOf), ...plain])
      if (text.includes(needle)) found.push(`${o.what}: ${needle}`);
  }
  return found;
}

/** The fixture's test numbers, in both forms: masked wherever they appear. */
const PHONES = ['081299900001', '6281299900001', '6281299900002', '081299900003', '6281299900003'];

describe('nothing leaks: every command that writes, with a distinctive key, a numeric key and a userinfo URL', () => {
  let a: Simulator;
  let n: Simulator;
  let f: Simulator;

  before(async () => {
    a = await startSimulator({ apiKey: KEY });
    n = await startSimulator({ apiKey: NUM_KEY });
    f = await startSimulator({ apiKey: KEY, fault: { name: 'post-duplicates-record' } });
  });

  after(async () => {
    await Promise.all([a?.close(), n?.close(), f?.close()]);
  });

  it('finds none of the secrets, nor a test number, in any byte written', async () => {
    const outputs = await everyOutput({}, a, n, f);
    assert.ok(outputs.length > 40, `${outputs.length} outputs searched`);
    assert.deepEqual(hits(outputs, [KEY, NUM_KEY, PASSWORD, PROXY_PASSWORD, `wrong-${PROXY_PASSWORD}`], PHONES), []);
    const names = outputs.map((o) => o.what);
    assert.ok(
      names.some((n) => /html\/index\.html!.*\.json$/.test(n)),
      'the HTML report archive was opened',
    );
    assert.ok(
      outputs.some((o) => o.what.startsWith('contract failing') && o.bytes.toString().includes('"name":"exchanges: ')),
      'the failing run carried request/response attachments into the HTML report',
    );
  });

  it('finds them when redaction is switched off, so the search can fail', async () => {
    // Enough scenarios to put the keys on every output unredacted, one of them failed by the fault; the full runs
    // are the test above.
    const outputs = await everyOutput({ H2H_UNSAFE_DISABLE_REDACTION: '1' }, a, n, f, 'BAL-1|ENV-2 history');
    const found = hits(outputs, [KEY, NUM_KEY]);
    for (const s of [KEY, NUM_KEY])
      assert.ok(
        found.some((h) => h.endsWith(`: ${s}`)),
        `${s} found: ${found.length} hits`,
      );
    for (const where of ['contract failing', 'probe', 'validate'])
      assert.ok(
        found.some((h) => h.startsWith(where)),
        `a leak found in ${where}'s output: ${found.slice(0, 5).join('; ')}`,
      );
  });
});

describe('keys in config files', () => {
  it("api_key_file is read from the config file's own folder, wherever the command runs", () => {
    const dir = mkdtempSync(join(tmpdir(), 'h2h-keyfile-'));
    writeFileSync(join(dir, 'staging.key'), `${KEY}\n`);
    writeFileSync(join(dir, 'h2h.yaml'), 'base_url: http://127.0.0.1:1\napi_key_file: staging.key\n');
    const cfg = contractConfigOf(['--config', join(dir, 'h2h.yaml')]);
    assert.equal(cfg.apiKey, KEY);
  });
});

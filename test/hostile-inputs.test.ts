import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContractSummary } from '../src/report/summary.ts';
import { MAX_JSON_DEPTH } from '../src/shared/json.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { listenLocal, NO_TARGET_ENV, runCliPeak } from './helpers.ts';

// Inputs that would exhaust the machine or crash a reader, and a network that breaks at the worst moment: each
// ends with its documented exit code and its one line, and no process of the command grows past 200 MB.

const tmp = mkdtempSync(join(tmpdir(), 'h2h-hostile-'));
const PEAK_MB = 200;
/** 100,000 arrays, one inside the next. */
const NESTED = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

/** A server in front of a simulator: answers a request as `rule` says (reset, nested JSON) or forwards it. */
async function front(
  upstream: string | undefined,
  rule: (path: string) => 'reset' | 'nested' | undefined,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url?.split('?')[0]}`);
    const what = rule(req.url ?? '');
    if (what === 'reset') return void req.socket.destroy();
    if (what === 'nested' || !upstream) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(NESTED);
    }
    const u = new URL(upstream);
    const out = http.request(
      { host: u.hostname, port: u.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  return { ...(await listenLocal(server)), seen };
}

interface Row {
  what: string;
  args: () => string[];
  exit: number;
  /** The one line that says what happened (stderr for exit 2 and 3, stdout otherwise). */
  line: RegExp;
  env?: () => NodeJS.ProcessEnv;
  /** Checked after the run. */
  verify?: () => void;
}

describe('hostile inputs: the documented exit, one line, and a bounded memory', () => {
  let sim: Simulator;
  let nested: Awaited<ReturnType<typeof front>>;
  let resets: Awaited<ReturnType<typeof front>>;
  let untouched: Simulator;
  const keyFile = join(tmp, 'key');
  const bigKey = join(tmp, 'big.key');
  const nestedFile = join(tmp, 'nested.json');
  const configZero = join(tmp, 'zero.yaml');
  const failures = join(tmp, 'saved');
  const fileInTheWay = join(tmp, 'a-file');

  before(async () => {
    sim = await startSimulator();
    untouched = await startSimulator();
    nested = await front(undefined, () => 'nested');
    // Preflight passes (saldo-user is the simulator's); the history read of discovery is reset, every time.
    resets = await front(sim.url, (path) => (path.includes('history-transaksi') ? 'reset' : undefined));
    writeFileSync(keyFile, `${sim.apiKey}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    // 1 GB, made sparse: no disk is filled, and a reader that reads it whole would take the gigabyte.
    writeFileSync(bigKey, `${sim.apiKey}\n`);
    truncateSync(bigKey, 1024 ** 3);
    writeFileSync(nestedFile, NESTED);
    writeFileSync(configZero, `base_url: ${sim.url}\napi_key_file: /dev/zero\n`);
    mkdirSync(failures);
    writeFileSync(
      join(failures, 'saldo.json'),
      JSON.stringify({
        version: 1,
        seed: 1,
        case: {
          phase: 'random',
          endpoint: 'saldo-user',
          method: 'POST',
          params: { api_key: '{{api_key}}' },
          label: 'saldo-user by POST',
        },
        scenario: 'a saved case',
        findings: [],
        response: { httpStatus: 200, body: '' },
        curl: '',
        target: '',
      }),
    );
    writeFileSync(fileInTheWay, 'not a folder\n');
  });

  after(async () => {
    await Promise.all([sim.close(), untouched.close(), nested.close(), resets.close()]);
  });

  const rows: Row[] = [
    {
      what: 'contract --api-key-file /dev/zero',
      args: () => ['contract', '--base-url', sim.url, '--api-key-file', '/dev/zero'],
      exit: 2,
      line: /^h2h contract: --api-key-file \/dev\/zero: more than 4096 bytes without a line end: not a key file/,
    },
    {
      what: 'contract, api_key_file: /dev/zero in the config file',
      args: () => ['contract', '--config', configZero],
      exit: 2,
      line: /: api_key_file \/dev\/zero: more than 4096 bytes without a line end: not a key file/,
    },
    {
      what: 'contract --api-key-file of 1 GB',
      args: () => ['contract', '--base-url', sim.url, '--api-key-file', bigKey],
      exit: 2,
      line: /^h2h contract: --api-key-file .*big\.key: over 4096 bytes: not a key file/,
    },
    {
      what: 'probe --once --api-key-file /dev/zero',
      args: () => ['probe', '--once', '--base-url', sim.url, '--api-key-file', '/dev/zero'],
      exit: 2,
      line: /^h2h probe: --api-key-file \/dev\/zero: more than 4096 bytes without a line end/,
    },
    {
      what: 'validate saldo-user /dev/zero',
      args: () => ['validate', 'saldo-user', '/dev/zero'],
      exit: 2,
      line: /^h2h validate: \/dev\/zero: over 33554432 bytes \(--body-cap\)/,
    },
    {
      what: 'validate of an answer of 100,000 nested arrays',
      args: () => ['validate', 'saldo-user', nestedFile],
      exit: 1,
      line: new RegExp(`FAIL ENV-1 .*JSON nested deeper than ${MAX_JSON_DEPTH} levels`),
    },
    {
      what: 'probe --once against an answer of 100,000 nested arrays',
      args: () => ['probe', '--once', '--base-url', nested.url, '--api-key', 'some-key-1234'],
      exit: 1,
      line: new RegExp(`saldo-user .* FAIL envelope: JSON nested deeper than ${MAX_JSON_DEPTH} levels \\(ENV-1\\)`),
    },
    {
      what: 'contract against an answer of 100,000 nested arrays',
      args: () => ['contract', '--base-url', nested.url, '--api-key', 'some-key-1234'],
      exit: 2,
      line: /^h2h contract: this does not look like the H2H API: saldo-user answered HTTP 200 \(application\/json\), "\[\[\[/,
    },
    {
      what: 'replay against an answer of 100,000 nested arrays',
      args: () => ['replay', join(failures, 'saldo.json'), '--base-url', nested.url, '--api-key', 'some-key-1234'],
      exit: 1,
      line: new RegExp(`^  ENV-1 .*JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'm'),
    },
    {
      what: 'contract: a reset during discovery, after the preflight passed',
      args: () => ['contract', '--base-url', resets.url, '--api-key-file', keyFile],
      exit: 2,
      line: /^h2h contract: target http:\/\/127\.0\.0\.1:\d+ gave no answer while preflight and discovery read it, before any scenario: reset: /,
    },
    {
      what: 'replay: a reset while it reads the history',
      args: () => ['replay', join(failures, 'saldo.json'), '--base-url', resets.url, '--api-key-file', keyFile],
      exit: 2,
      line: /^h2h replay: target http:\/\/127\.0\.0\.1:\d+ gave no answer while replay read its history, before any scenario: reset: /,
    },
    {
      what: 'contract --reports-dir under a regular file',
      args: () => [
        'contract',
        '--base-url',
        untouched.url,
        '--api-key',
        untouched.apiKey,
        '--reports-dir',
        join(fileInTheWay, 'reports'),
      ],
      exit: 2,
      line: /^h2h contract: --reports-dir .*a-file\/reports: cannot write reports there \(ENOTDIR: a part of the path is a file, not a folder\)/,
      verify: () => assert.deepEqual(untouched.log, [], 'no request reached the target'),
    },
  ];

  for (const row of rows)
    it(`${row.what}: exit ${row.exit}, one line, peak RSS under ${PEAK_MB} MB`, async (t) => {
      const r = await runCliPeak(row.args(), {
        env: { ...NO_TARGET_ENV, ...row.env?.() },
        cwd: tmp,
        timeoutMs: 60_000,
      });
      const console = `${r.stdout}${r.stderr}`;
      assert.equal(r.code, row.exit, console.slice(-2000));
      assert.doesNotMatch(console, /\n\s+at |internal error|Maximum call stack|bad_alloc/, 'no crash');
      if (row.exit >= 2) {
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, row.line);
      } else assert.match(r.stdout, row.line);
      assert.ok(r.peaks.length > 0, 'the process reported its peak at exit');
      for (const p of r.peaks) assert.ok(p.mb < PEAK_MB, `${p.what} (pid ${p.pid}): peak RSS ${p.mb.toFixed(1)} MB`);
      t.diagnostic(`peak RSS ${r.peaks.map((p) => p.mb.toFixed(1)).join(', ')} MB`);
      row.verify?.();
    });

  it('a key file others can read is taken, with a warning that names it and its mode', async () => {
    const open = join(tmp, 'open.key');
    writeFileSync(open, `${sim.apiKey}\n`);
    chmodSync(open, 0o644);
    const r = await runCliPeak(['probe', '--once', '--base-url', sim.url, '--api-key-file', open], {
      env: NO_TARGET_ENV,
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: --api-key-file .*open\.key can be read by other users \(mode 0644\): chmod 600 /);
    const quiet = await runCliPeak(['probe', '--once', '--base-url', sim.url, '--api-key-file', keyFile], {
      env: NO_TARGET_ENV,
      timeoutMs: 30_000,
    });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /can be read by other users/);
  });

  it('a gate run against a target whose history answers nest 100,000 deep: ENV-1 violated, never a crash', async (t) => {
    const histories = await front(sim.url, (path) => (path.includes('history-transaksi') ? 'nested' : undefined));
    const reports = join(tmp, 'nested-history');
    try {
      const r = await runCliPeak(
        ['contract', '--base-url', histories.url, '--api-key', sim.apiKey, '--grep', 'HIS-1', '--reports-dir', reports],
        { env: NO_TARGET_ENV, timeoutMs: 120_000 },
      );
      assert.equal(r.code, 1, `${r.stdout}${r.stderr}`.slice(-3000));
      const summary = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
      assert.equal(summary.clauses.find((c) => c.id === 'ENV-1')?.status, 'violated');
      assert.match(JSON.stringify(summary), new RegExp(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`));
      for (const p of r.peaks) assert.ok(p.mb < PEAK_MB, `${p.what}: peak RSS ${p.mb.toFixed(1)} MB`);
      t.diagnostic(`peak RSS per process ${r.peaks.map((p) => p.mb.toFixed(1)).join(', ')} MB`);
    } finally {
      await histories.close();
    }
  });
});

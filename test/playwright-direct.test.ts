import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContractSummary } from '../src/report/summary.ts';
import { type DocCommand, docCommands, parseCommand, whereOf } from './doc-commands.ts';
import { everyByteWritten, ROOT, type Running, runProcess, startCli } from './helpers.ts';

// docs/gate.md: the Playwright suite run directly, with the same environment as `h2h contract`, runs the same
// suite. The key given by a file (H2H_API_KEY_FILE, or a config file's api_key_file) is resolved by the global
// setup, and every worker must send that key: with none, a keeping provider refuses every request, and the run
// reports its refusals as violations (BAL-1, TRX-1) and exits 1. Each `npx playwright test` line of the pages runs
// here as written (test/docs-run.test.ts lists them as run here), with `node .../@playwright/test/cli.js` for npx.

const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
/** Two areas, a few scenarios: balance (BAL-1) and lookup (TRX-1, TRX-2), both needing the right key. */
const GREP = 'BAL-|TRX-';

const tmp = mkdtempSync(join(tmpdir(), 'h2h-direct-'));
let mock: Running;
let keyFile = '';

/** The environment of this process without any H2H_* variable: only what a case gives reaches the run. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('H2H_')) env[k] = v;
  return { ...env, FORCE_COLOR: '0', ...extra };
}

/** `node .../@playwright/test/cli.js test ARGS` in its own process, with a deadline; killed by its own PID. */
function playwright(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  const what = `playwright test ${args.join(' ')}`;
  return runProcess(process.execPath, [PLAYWRIGHT, 'test', ...args], { cwd, env, timeoutMs: 120_000, what }).then(
    (r) => ({ code: r.code, out: r.stdout, err: r.stderr }),
  );
}

/** What the run wrote: its summary, and the names of every file (HTML report archive opened) holding the key. */
async function afterRun(reports: string): Promise<{ summary: ContractSummary; withKey: string[] }> {
  const summary = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
  const files = await everyByteWritten(reports);
  assert.ok(files.size >= 4, `the run wrote its reports: ${[...files.keys()].join(', ')}`);
  const withKey = [...files].filter(([, bytes]) => bytes.includes(mock.apiKey)).map(([name]) => name);
  return { summary, withKey };
}

/** The run held what it judged, judged the key-bound clauses, and the key is nowhere in its output or reports. */
async function assertHeldWithoutLeak(
  r: { code: number | null; out: string; err: string },
  reports: string,
): Promise<void> {
  assert.equal(r.code, 0, `${r.out.slice(-3000)}\n${r.err.slice(-2000)}`);
  const { summary, withKey } = await afterRun(reports);
  assert.equal(summary.result, 'held', JSON.stringify(summary.clauses.filter((c) => c.status !== 'not-judged')));
  for (const id of ['BAL-1', 'TRX-1', 'TRX-2'])
    assert.equal(summary.clauses.find((c) => c.id === id)?.status, 'held', `${id} judged and held`);
  assert.ok(summary.totals.passed > 0, 'scenarios ran');
  assert.ok(!(r.out + r.err).includes(mock.apiKey), 'the key is not in the run’s stdout or stderr');
  assert.deepEqual(withKey, [], 'the key is in no report file');
}

before(async () => {
  // `h2h mock`, a keeping provider, as a process of its own; its key goes into a file only this user reads.
  mock = await startCli(['mock', '--listen', '127.0.0.1:0']);
  assert.ok(mock.apiKey, mock.stdout());
  keyFile = join(tmp, 'h2h-key');
  writeFileSync(keyFile, `${mock.apiKey}\n`, { mode: 0o600 });
});

after(async () => {
  await mock?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The pages' `npx playwright test` lines (docs/gate.md's: in a client's folder, and in a checkout). */
const LINES: DocCommand[] = docCommands().filter((c) => /^(\w+=\S+ )*npx playwright test\b/.test(c.text));

/**
 * One line as a reader runs it: the placeholders filled (the target, the key file), a config file it names written
 * with api_key_file beside its key file, in a client's folder when it names the installed package's config (its
 * node_modules/h2h-contract this checkout), else in this checkout with the reports in a folder of the test's.
 */
async function runLine(c: DocCommand): Promise<void> {
  const text = c.text.split('https://h2h.example').join(mock.url).split('~/.h2h-key').join(keyFile);
  const p = parseCommand(text);
  const [npx, bin, test, ...args] = p.argv;
  assert.deepEqual([npx, bin, test], ['npx', 'playwright', 'test'], whereOf(c));
  const folder = mkdtempSync(join(tmp, 'line-'));
  const installed = args.some((a) => a.startsWith('node_modules/h2h-contract/'));
  if (installed) {
    mkdirSync(join(folder, 'node_modules'));
    symlinkSync(ROOT, join(folder, 'node_modules', 'h2h-contract'), 'dir');
  }
  const cwd = installed ? folder : ROOT;
  const env: Record<string, string> = { ...p.env, H2H_GREP: GREP };
  const configName = env.H2H_CONFIG;
  if (configName !== undefined) {
    // The config file holds the target and where the key is (api_key_file, relative to its folder), never the key.
    const config = installed ? join(cwd, configName) : join(folder, basename(configName));
    mkdirSync(join(config, '..', 'secrets'), { recursive: true });
    writeFileSync(join(config, '..', 'secrets', 'key'), `${mock.apiKey}\n`, { mode: 0o600 });
    writeFileSync(config, `base_url: ${mock.url}\napi_key_file: secrets/key\n`);
    env.H2H_CONFIG = config;
  }
  // In the checkout, the reports go to the test's folder, not into the checkout's reports/.
  if (!installed) env.H2H_REPORTS_DIR = join(folder, 'reports');
  assert.ok(!('H2H_API_KEY' in env), 'the line gives no key itself: the global setup resolves it');
  const r = await playwright(args, cwd, cleanEnv(env));
  await assertHeldWithoutLeak(r, join(folder, 'reports'));
  if (configName !== undefined)
    assert.ok(!readFileSync(env.H2H_CONFIG ?? '', 'utf8').includes(mock.apiKey), 'the config file holds no key');
}

describe('the Playwright suite run directly (docs/gate.md): every worker sends the key, however it was given', () => {
  it('the pages show it both ways: with H2H_API_KEY_FILE, and with a config file (H2H_CONFIG)', () => {
    assert.ok(
      LINES.some((c) => /\bH2H_API_KEY_FILE=/.test(c.text) && /\bH2H_BASE_URL=/.test(c.text)),
      LINES.map(whereOf).join('\n'),
    );
    assert.ok(
      LINES.some((c) => /\bH2H_CONFIG=/.test(c.text)),
      LINES.map(whereOf).join('\n'),
    );
    assert.ok(LINES.some((c) => c.text.includes('-c node_modules/h2h-contract/dist/suites/playwright.config.js')));
  });

  for (const c of LINES)
    it(`${whereOf(c)}: exit 0, the key-bound clauses held, the key nowhere in output or reports`, () => runLine(c));
});

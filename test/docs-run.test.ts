import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gateConfig } from '../src/cli/init-settings.ts';
import type { SavedFailure } from '../src/report/failures.ts';
import { COMMAND_NAMES, type CommandName } from '../src/shared/settings.ts';
import { DOC_PAGES, type DocCommand, docCommands, parseCommand, whereOf } from './doc-commands.ts';
import { BIN, ROOT, type Running, runProcess, startCli, stopChild } from './helpers.ts';

// Every command README.md and docs/*.md show (test/doc-commands.ts extracts them) runs here as written, each in its
// own process, against the embedded simulator or an `h2h mock` this test starts, each page in a folder of its own
// where the commands write; or it is listed, with the reason it does not run here. A command neither run nor
// listed fails the first test. What stands in for a page's placeholders is said beside each command (t.diagnostic).

const tmp = mkdtempSync(join(tmpdir(), 'h2h-docs-run-'));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};
/** How gate runs are narrowed: the whole gate runs in test/gate.test.ts; here each run is a few scenarios. */
const NARROW = 'BAL-1';
/** A command's deadline; a long-running one's to be ready. */
const DEADLINE_MS = 120_000;
const READY_MS = 20_000;

let mock: Running;
let keyFile = '';
let answers: { saldo: string; history: string } = { saldo: '', history: '' };

/** What the runner does with one command. */
type Plan = { listed: string } | { run: Run };

interface Run {
  /** The program (node for h2h) and its arguments. */
  cmd: string;
  args: string[];
  /** The command's own NAME=value assignments. */
  env: Record<string, string>;
  /** How the command as run differs from the page: the placeholders filled, a narrowing. */
  notes: string[];
  /** Its outcome is its output alone (and, for a gate run, its reports): run once per distinct command line. */
  once?: boolean;
  /** A gate run: a repeat gets a copy of the first run's reports. */
  gate?: boolean;
  /** It serves until stopped: ready when its output matches; stopped by its PID at the end of its code block. */
  ready?: RegExp;
  /** `> FILE`: its standard output, in the page's folder. */
  stdout?: string;
  /** Files it needs that an earlier step of a reader makes (`last/`, the reading, saved failures); what it made. */
  prepare?: (dir: string) => string | undefined;
}

/** The environment of every command: none of this process's H2H_* settings, the keys the config files name. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('H2H_')) env[k] = v;
  return {
    ...env,
    FORCE_COLOR: '0',
    // The variables gate.md's config file (api_key_env) and the probe.yaml written here name.
    H2H_STAGING_KEY: mock.apiKey,
    H2H_PROD_KEY: mock.apiKey,
    // A probe or mock with no --listen binds a free loopback port, not the default 9464 another process may hold.
    H2H_LISTEN: '127.0.0.1:0',
  };
}

/** The key, wherever a command line or its output would show it. */
const hidden = (text: string): string => text.split(mock.apiKey).join('***');

/** The plan of `h2h ARGS` (npx h2h, npm run gate, or h2h itself). */
function h2hPlan(args: string[], env: Record<string, string>, notes: string[]): Plan | undefined {
  const command = args[0] ?? '';
  if (/^[A-Z]+$/.test(command)) return { listed: `a pattern: ${command} stands for any command` };
  if (!COMMAND_NAMES.includes(command as CommandName)) return undefined;
  const run: Run = { cmd: process.execPath, args: [BIN, ...args], env, notes };
  // What reads files and writes its output (and reports, docs or a job nobody after it reads) runs once.
  run.once = ['contract', 'docs', 'lint', 'diff', 'validate', 'init'].includes(command) || args.includes('--once');
  if (command === 'contract') {
    run.gate = true;
    if (!args.includes('--grep')) {
      run.args.push('--grep', NARROW);
      notes.push(`narrowed with --grep ${NARROW}: the whole gate runs in test/gate.test.ts`);
    }
    if (args.includes('last/contract-summary.json'))
      run.prepare = (dir) => {
        // `last/`: the summary of the run before, as a CI job keeps it (here, the last gate run in this folder).
        const summary = join(dir, 'reports', 'contract-summary.json');
        assert.ok(existsSync(summary), 'an earlier gate run in this folder wrote reports/contract-summary.json');
        mkdirSync(join(dir, 'last'), { recursive: true });
        copyFileSync(summary, join(dir, 'last', 'contract-summary.json'));
        return "last/contract-summary.json: the summary of this folder's gate run before it";
      };
  }
  if (command === 'mock') {
    run.ready = /^H2H_BASE_URL=(\S+)$/m;
    if (args.includes('test/provider-reading.yaml'))
      run.prepare = (dir) => {
        // Where README.md's `cp` puts the reading an earlier gate run learned; a page without that step gets it so.
        const reading = join(dir, 'test', 'provider-reading.yaml');
        if (existsSync(reading)) return undefined;
        copyFileSync(join(dir, 'reports', 'provider-reading.yaml'), reading);
        return "test/provider-reading.yaml: the reading this folder's last gate run learned";
      };
  }
  if (command === 'probe' && !args.includes('--once')) run.ready = /^H2H_PROBE_URL=(\S+)$/m;
  if (command === 'replay')
    run.prepare = (dir) => {
      writeSavedFailure(dir);
      return 'reports/failures/: one saved failure of a run before (AUTH-1, a near miss of the key accepted)';
    };
  return { run };
}

/** What the runner does with one command of a page: run it (as what), or why it does not. */
function planOf(c: DocCommand): Plan | undefined {
  let text = c.text;
  const notes: string[] = [];
  const fill = (from: string | RegExp, to: string, note: string): void => {
    const next = typeof from === 'string' ? text.split(from).join(to) : text.replace(from, to);
    if (next !== text) notes.push(note);
    text = next;
  };
  fill('https://h2h.example', mock.url, 'https://h2h.example: an h2h mock started by this test');
  fill('~/.h2h-key', keyFile, "~/.h2h-key: a file (mode 600) that holds the mock's key");
  fill(/\bH2H_API_KEY=\.\.\.(?=\s)/g, `H2H_API_KEY=${mock.apiKey}`, "H2H_API_KEY=...: the mock's key");
  fill(/--listen \S+/g, '--listen 127.0.0.1:0', '--listen: a free loopback port in place of the fixed one');
  const p = parseCommand(text);
  if (p.other) return undefined;
  const [program = '', ...rest] = p.argv;
  if (p.background && !p.stdout) return undefined;
  const withOutput = (plan: Plan | undefined): Plan | undefined => {
    if (plan && 'run' in plan && p.stdout) {
      plan.run.stdout = p.stdout;
      if (!plan.run.ready) return undefined;
    }
    return plan;
  };
  if (program === 'npx') {
    let i = 0;
    let pkg: string | undefined;
    for (; rest[i]?.startsWith('-'); i++) if (rest[i] === '--package' || rest[i] === '-p') pkg = rest[++i];
    const [bin, ...args] = rest.slice(i);
    if (pkg !== undefined)
      notes.push(
        `npx --package ${pkg}: this checkout's h2h (the tarball is this checkout, packed; test/init.test.ts runs npx with one)`,
      );
    if (bin === 'h2h') return withOutput(h2hPlan(args, p.env, notes));
    if (bin === 'playwright' && args[0] === 'test')
      return {
        listed:
          'run by test/playwright-direct.test.ts: every `npx playwright test` line of the pages, as written, against h2h mock (narrowed with H2H_GREP)',
      };
    if (bin === 'playwright' && args[0] === 'show-report')
      return {
        listed:
          "serves the HTML report until stopped, on a fixed port, and opens a browser: Playwright's own command, not the toolkit's",
      };
    return undefined;
  }
  if (program === 'h2h') return withOutput(h2hPlan(rest, p.env, notes));
  if (program === 'npm') {
    if (rest[0] === 'ci')
      return { listed: 'installs the dependencies (npm ci): done on this machine before any test runs' };
    if (rest[0] === 'install')
      return {
        listed:
          'installs a package (from a tarball or a git URL, over the network): test/init.test.ts installs the packed toolkit so',
      };
    const script = rest[0] === 'run' ? PKG.scripts[rest[1] ?? ''] : undefined;
    const m = /^node dist\/src\/cli\/main\.js (.+)$/.exec(script ?? '');
    if (!m) return undefined;
    notes.push(`npm run ${rest[1]}: its script, ${script}, run in this page's folder (its reports go there)`);
    const extra = rest.indexOf('--') >= 0 ? rest.slice(rest.indexOf('--') + 1) : [];
    return h2hPlan([...(m[1] ?? '').split(' '), ...extra], p.env, notes);
  }
  if (program === 'bash' && rest[0] === '.ci/run')
    return {
      listed:
        'installs Debian packages and Node 24 (apt-get, the npm registry), then runs every test (npm test, 9 minutes): what CI runs',
    };
  if (program === 'podman' || program === 'scripts/container-base.sh')
    return {
      listed: 'needs a container engine (podman) and builds an image: test/container.test.ts, where podman is there',
    };
  if (program === '/usr/bin/node' && rest[0]?.startsWith('/opt/h2h-contract/'))
    return {
      listed:
        "systemd's ExecStart of monitoring/systemd/h2h-probe.service (%d is the unit's credentials folder): test/systemd.test.ts",
    };
  if (program === 'cp') return { run: { cmd: 'cp', args: rest, env: p.env, notes } };
  if (program === 'curl')
    return {
      run: {
        cmd: 'curl',
        args: ['--silent', '--show-error', '--fail', ...rest],
        env: p.env,
        notes: [...notes, "--silent --show-error --fail added: an HTTP error is the command's failure"],
      },
    };
  return undefined;
}

/** One failing generated case as a run saves it to reports/failures/ (an AUTH-1 near miss on saldo-user). */
function writeSavedFailure(dir: string): void {
  const failure: SavedFailure = {
    version: 1,
    seed: 7,
    scenario: 'AUTH-1 saldo-user POST: near misses of the key are refused without account data',
    case: {
      phase: 'near-miss',
      endpoint: 'saldo-user',
      method: 'POST',
      label: 'api_key: the real key, the case of its last letter flipped',
      params: { api_key: '{{near-miss:0}}' },
      wrongKey: true,
    },
    findings: ['AUTH-1 [saldo-user POST] $.ok: expected not true for a bad api_key, got true'],
    response: { httpStatus: 200, body: '{"ok":true,"status":"SUCCESS","saldo":10000000}' },
    curl: '',
    target: 'http://127.0.0.1:1',
  };
  mkdirSync(join(dir, 'reports', 'failures'), { recursive: true });
  writeFileSync(join(dir, 'reports', 'failures', 'near-miss-AUTH-1-saldo-user-POST.json'), JSON.stringify(failure));
}

/** The files the pages' commands name, as a reader's folder holds them. */
function writeFixtures(dir: string): void {
  // h2h.config.yaml as h2h init writes it (every key commented out: the embedded simulator).
  writeFileSync(join(dir, 'h2h.config.yaml'), gateConfig(PKG.version));
  // h2h.yaml: the config file docs/gate.md shows, at the mock (its key in H2H_STAGING_KEY, which it names).
  const gate = readFileSync(join(ROOT, 'docs', 'gate.md'), 'utf8');
  const shown = [...gate.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((y) => /^base_url:/m.test(y));
  assert.ok(shown, 'docs/gate.md shows a config file');
  writeFileSync(join(dir, 'h2h.yaml'), shown.split('https://h2h.example').join(mock.url));
  // probe.yaml with the target the pages name (prod), at the mock; its key in H2H_PROD_KEY.
  writeFileSync(
    join(dir, 'probe.yaml'),
    `targets:\n  - name: prod\n    base_url: ${mock.url}\n    api_key_env: H2H_PROD_KEY\n`,
  );
  // The document and its copies: main.yaml (the main branch's), old/ (before a change), my/ (one being edited).
  for (const copy of ['openapi.yaml', 'main.yaml', 'old/openapi.yaml', 'my/openapi.yaml']) {
    mkdirSync(dirname(join(dir, copy)), { recursive: true });
    copyFileSync(join(ROOT, 'openapi.yaml'), join(dir, copy));
  }
  // Saved answers of the mock, for h2h validate: a body, and an exchange with its request.
  writeFileSync(join(dir, 'answer.json'), answers.saldo);
  writeFileSync(
    join(dir, 'exchange.json'),
    JSON.stringify({
      request: { method: 'POST', params: { limit: 5 } },
      response: { status: 200, body: JSON.parse(answers.history) as unknown },
    }),
  );
  mkdirSync(join(dir, 'test'), { recursive: true });
}

/** `a*b` of a command line, expanded as the shell does in the folder (a pattern that matches nothing stays). */
function glob(dir: string, word: string): string[] {
  if (!word.includes('*')) return [word];
  const folder = dirname(word);
  const re = new RegExp(
    `^${word
      .slice(folder.length + 1)
      .replace(/[.]/g, '\\.')
      .replace(/\*/g, '[^/]*')}$`,
  );
  const found = existsSync(join(dir, folder))
    ? readdirSync(join(dir, folder))
        .filter((f) => re.test(f))
        .sort()
        .map((f) => `${folder}/${f}`)
    : [];
  return found.length ? found : [word];
}

interface Done {
  code: number | null;
  out: string;
}

/** A command to its end, in its own process, with a deadline (then killed by its PID). */
async function runToEnd(run: Run, dir: string): Promise<Done> {
  const r = await runProcess(run.cmd, run.args, {
    cwd: dir,
    env: { ...baseEnv(), ...run.env },
    timeoutMs: DEADLINE_MS,
    what: run.cmd,
    show: hidden,
  });
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
}

/** A long-running command until it says it is ready (its output, or the file it writes to); its first match. */
function startServing(run: Run, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const ready = run.ready as RegExp;
  const fd = run.stdout ? openSync(join(dir, run.stdout), 'w') : undefined;
  const child = spawn(run.cmd, run.args, {
    cwd: dir,
    env: { ...baseEnv(), ...run.env },
    stdio: ['ignore', fd ?? 'pipe', 'pipe'],
  });
  if (fd !== undefined) closeSync(fd);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const seen = (): string => out + (run.stdout ? readFileSync(join(dir, run.stdout), 'utf8') : '');
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const look = (): void => {
      const m = ready.exec(seen());
      if (m) resolve({ child, url: m[1] ?? '' });
      else if (child.exitCode !== null || Date.now() - started > READY_MS) {
        void stopChild(child);
        reject(new Error(`not ready (exit ${child.exitCode})\n${hidden(seen()).slice(-3000)}`));
      }
      // Its output arrives on the pipes; a file it writes to is looked at again (with the deadline above).
      else setTimeout(look, 50);
    };
    look();
  });
}

let plans: { c: DocCommand; plan: Plan | undefined }[] = [];
/** Commands run once: the first of each distinct command line, and (a gate run) a copy of the reports it wrote. */
const ranOnce = new Map<string, { where: string; reports?: string }>();

before(async () => {
  mock = await startCli(['mock', '--listen', '127.0.0.1:0']);
  keyFile = join(tmp, 'h2h-key');
  writeFileSync(keyFile, `${mock.apiKey}\n`, { mode: 0o600 });
  const ask = async (endpoint: string, body: object): Promise<string> => {
    const res = await fetch(`${mock.url}/api/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: mock.apiKey, ...body }),
    });
    assert.equal(res.status, 200);
    return res.text();
  };
  answers = { saldo: await ask('saldo-user', {}), history: await ask('history-transaksi', { limit: 5 }) };
  plans = docCommands().map((c) => ({ c, plan: planOf(c) }));
});

after(async () => {
  await mock?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('every command of README.md and docs/*.md runs as written, or is listed with why not', () => {
  it('each command is run below or listed here with the reason; none is neither', (t) => {
    const unknown = plans.filter((p) => p.plan === undefined).map((p) => whereOf(p.c));
    assert.deepEqual(unknown, [], 'commands this test neither runs nor lists with a reason: give each a rule');
    const listed = plans.filter((p) => p.plan && 'listed' in p.plan);
    for (const { c, plan } of listed)
      t.diagnostic(`not run: ${whereOf(c)} -- why: ${(plan as { listed: string }).listed}`);
    const run = plans.length - listed.length;
    t.diagnostic(`${plans.length} commands in ${DOC_PAGES.length} pages: ${run} run below, ${listed.length} listed`);
    assert.ok(run >= 40, `${run} commands run: the pages hold more than that`);
    assert.ok(plans.length - run === listed.length);
  });

  // The pages that show commands (the others have nothing to run).
  const shown = new Set(docCommands().map((c) => c.page));
  for (const page of DOC_PAGES.filter((p) => shown.has(p)))
    it(`${page}: its commands, in order, in a folder of its own`, async (t) => {
      const mine = plans.filter((p) => p.c.page === page);
      if (!mine.some((p) => p.plan && 'run' in p.plan)) {
        t.skip('every command of this page is listed, with why, in the first test');
        return;
      }
      const dir = mkdtempSync(join(tmp, `${page.replace(/\W+/g, '-')}-`));
      writeFixtures(dir);
      let serving: { c: DocCommand; child: ChildProcess; url: string }[] = [];
      const stopServing = async (): Promise<void> => {
        for (const s of serving) {
          // A probe finishes the round in flight first (a history read, then a lookup, each up to its 10 s deadline)
          // and closes its server: SIGKILL only after 60 s, for a loaded machine (30 s was passed once at load 10).
          const code = await new Promise<number | null>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve(s.child.exitCode);
            s.child.once('exit', (c) => resolve(c));
            s.child.kill('SIGTERM');
            setTimeout(() => s.child.kill('SIGKILL'), 60_000).unref();
          });
          assert.equal(code, 0, `${whereOf(s.c)}: stopped by SIGTERM, it exits 0`);
        }
        serving = [];
      };
      let block = Number.NaN;
      for (const { c, plan } of mine) {
        if (!plan || !('run' in plan)) continue;
        // What a block starts serves the lines after it in that block (curl, a gate at the mock), then stops.
        if (c.block !== block) await stopServing();
        block = c.block;
        await t.test(whereOf(c), async (st) => {
          const run: Run = { ...plan.run, args: [...plan.run.args], notes: [...plan.run.notes] };
          const made = run.prepare?.(dir);
          if (made) run.notes.push(made);
          run.args = run.args.flatMap((a) => glob(dir, a));
          if (run.cmd === 'curl') {
            // The port the exporter started above in this block listens on, for the page's fixed 9464.
            const probe = serving.find((s) => /\bprobe\b/.test(s.c.text));
            assert.ok(probe, 'a probe started earlier in this block');
            const port = new URL(probe.url).port;
            run.args = run.args.map((a) => a.replace(/127\.0\.0\.1:9464/, `127.0.0.1:${port}`));
            run.notes.push(`127.0.0.1:9464: the port of the probe started above (${port})`);
          }
          for (const note of run.notes) st.diagnostic(note);
          st.diagnostic(
            `ran as: ${hidden([...Object.entries(run.env).map(([k, v]) => `${k}=${v}`), run.cmd, ...run.args].join(' '))}`,
          );
          if (run.ready) {
            const s = await startServing(run, dir);
            assert.ok(s.url, 'it said where it serves');
            serving.push({ c, child: s.child, url: s.url });
            if (run.stdout && c.comment.includes(`. ./${run.stdout}`)) {
              // The page's next step (in its comment): the file it wrote sets the variables in a shell.
              const sourced = await runToEnd(
                {
                  cmd: 'bash',
                  args: ['-c', `set -a; . ./${run.stdout}; set +a; printf '%s' "$H2H_BASE_URL"`],
                  env: {},
                  notes: [],
                },
                dir,
              );
              assert.equal(sourced.code, 0, hidden(sourced.out));
              assert.equal(sourced.out, s.url, `. ./${run.stdout} sets H2H_BASE_URL`);
            }
            return;
          }
          const key = JSON.stringify([run.args.slice(1), run.env]);
          const earlier = run.once ? ranOnce.get(key) : undefined;
          if (earlier) {
            if (earlier.reports) {
              rmSync(join(dir, 'reports'), { recursive: true, force: true });
              cpSync(earlier.reports, join(dir, 'reports'), { recursive: true });
            }
            st.diagnostic(
              `the same command as ${earlier.where}: it passed there, not run again${earlier.reports ? ' (its reports copied here)' : ''}`,
            );
            return;
          }
          const done = await runToEnd(run, dir);
          assert.equal(done.code, 0, hidden(done.out).slice(-4000));
          if (run.once) {
            const reports = run.gate ? join(tmp, `gate-${ranOnce.size}`) : undefined;
            if (reports) cpSync(join(dir, 'reports'), reports, { recursive: true });
            ranOnce.set(key, { where: whereOf(c), ...(reports ? { reports } : {}) });
          }
        });
      }
      await stopServing();
    });
});

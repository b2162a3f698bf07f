import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/commands.ts';
import { cliMarkdown } from '../src/cli/reference.ts';
import { COMMAND_HELP, SETTINGS, settingsOf } from '../src/shared/settings.ts';
import { BIN, NO_TARGET_ENV, ROOT, runCli } from './helpers.ts';

describe('the h2h command line', () => {
  it('every command answers --help with its usage and each of its flags, all from the settings table', async () => {
    assert.equal(COMMANDS.length, 9);
    for (const entry of COMMANDS) {
      const cmd = await entry.load();
      const r = await runCli([cmd.name, '--help']);
      assert.equal(r.code, 0, cmd.name);
      assert.match(r.stdout, new RegExp(`^usage: h2h ${cmd.name}`), cmd.name);
      for (const s of settingsOf(cmd.name)) {
        assert.match(
          r.stdout.split('\n')[0] ?? '',
          new RegExp(`--${s.flag}\\b`),
          `usage line of ${cmd.name}: --${s.flag}`,
        );
        assert.match(r.stdout, new RegExp(`\\n  --${s.flag}\\b`), `${cmd.name} --help: --${s.flag}`);
      }
      // Every flag the help's words name is a flag of the command (a flag cannot live outside the table).
      // Old names still taken (with a deprecation line) may be named too.
      const flags = new Set(settingsOf(cmd.name).flatMap((s) => [s.flag, ...(s.deprecated?.flags ?? [])]));
      for (const m of r.stdout.matchAll(/(?<![\w-])--([a-z][a-z-]+)/g))
        assert.ok(
          flags.has(m[1] ?? '') || m[1] === 'help' || m[1] === 'debug' || SETTINGS.some((s) => s.flag === m[1]),
          `${cmd.name} --help names --${m[1]}, which no setting has`,
        );
    }
  });

  // A heading is a line at the margin that ends with a colon ("Flags (...):", "Examples:", "Faults:"); each must
  // have lines of its own before the next heading or the end.
  it('no help text has an empty heading, and the top-level help has examples of its own commands', async () => {
    const heading = (line: string): boolean => /^\S.*:$/.test(line.trimEnd());
    const emptyHeadings = (text: string): string[] => {
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      return lines.flatMap((l, i) => {
        const next = lines[i + 1];
        return heading(l) && (next === undefined || heading(next)) ? [`${l} -> ${next ?? '(the end)'}`] : [];
      });
    };
    const top = await runCli(['--help']);
    assert.equal(top.code, 0);
    const helps: [string, string][] = [['h2h --help', top.stdout]];
    for (const entry of COMMANDS) {
      const r = await runCli([entry.name, '--help']);
      assert.equal(r.code, 0, entry.name);
      helps.push([`h2h ${entry.name} --help`, r.stdout]);
    }
    for (const [what, text] of helps) assert.deepEqual(emptyHeadings(text), [], what);
    // The top-level help, like every command's, ends with examples, then its exit codes.
    const [, examples = ''] = /\nExamples:\n((?: {2}h2h .*\n)+)\nExit codes: /.exec(top.stdout) ?? [];
    assert.ok(examples, `h2h --help has Examples before its exit codes:\n${top.stdout}`);
    const lines = examples.trimEnd().split('\n');
    assert.ok(lines.length >= 3, 'at least three examples');
    // Each is one of a command's own examples (which first-minutes.test.ts parses), or `h2h help COMMAND`.
    const known = new Set(Object.values(COMMAND_HELP).flatMap((h) => h.examples));
    for (const line of lines) {
      const example = line.trim();
      const help = /^h2h help (\S+) {2}# \S/.exec(example);
      assert.ok(
        known.has(example) || COMMANDS.some((c) => c.name === help?.[1]),
        `${example}: a command's own example, or h2h help COMMAND`,
      );
    }
  });

  it('docs/cli.md is the settings table as it is now (npm run docs:cli writes it)', async () => {
    assert.equal(readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8'), await cliMarkdown());
  });

  it('an unknown command exits 2 and lists the commands', async () => {
    const r = await runCli(['nocommand']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'nocommand'/);
    for (const cmd of COMMANDS) assert.match(r.stderr, new RegExp(`\\b${cmd.name}\\b`));
  });

  it('an internal error exits 3 with one redacted line, the stack only with --debug', async () => {
    const env = { H2H_INJECT: 'internal-error', H2H_API_KEY: 'LEAK-canary-internal-9f2' };
    const r = await runCli(['validate', 'saldo-user', '/dev/null'], { env });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^h2h validate: internal error: injected internal error \(key \*\*\*\) \(--debug prints the stack\)$/m,
    );
    assert.ok(!r.stderr.includes('LEAK-canary'));
    const debug = await runCli(['validate', 'saldo-user', '/dev/null', '--debug'], { env });
    assert.equal(debug.code, 3);
    assert.match(debug.stderr, /\n\s+at /, 'the stack');
    assert.ok(!debug.stderr.includes('LEAK-canary'));
  });

  it('a crash of the Playwright suite is an internal error: exit 3, one line', async () => {
    const r = await runCli(['contract', '--grep', 'BAL-1'], {
      env: { H2H_INJECT: 'playwright-crash', H2H_BASE_URL: '', H2H_API_KEY: '', H2H_CONFIG: '' },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stderr, /^h2h contract: internal error: the suite did not run to the end \(playwright exit \d+\)/m);
  });

  it('a port in use exits 2 with the reason, for the probe and the simulator alike', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const probe = await runCli(['probe', '--listen', `127.0.0.1:${port}`]);
      assert.equal(probe.code, 2, probe.stderr);
      assert.match(
        probe.stderr,
        new RegExp(
          `^h2h probe: --listen: cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE \\(the port is in use`,
          'm',
        ),
      );
      assert.doesNotMatch(probe.stderr, /\n\s+at /, 'no stack');
      const mock = await runCli(['mock', '--port', String(port)]);
      assert.equal(mock.code, 2, mock.stderr);
      assert.match(mock.stderr, /EADDRINUSE \(the port is in use/);
    } finally {
      holder.close();
    }
  });

  it('the probe: 0 when every probe succeeded, 1 when one failed (tested in probe.test.ts), 3 on an internal error', async () => {
    const r = await runCli(['probe', '--once'], { env: { H2H_INJECT: 'internal-error' } });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^h2h probe: internal error: /);
  });
});

// A supervisor may send SIGTERM the moment a serving command prints where it serves. Here the command's own process
// sends it to itself from inside that very write, before the write returns: the earliest a reader of its output
// could. Listening only after the announcement, h2h died by the signal (no exit code), as a docs-run test met once.
const SIGTERM_ON_ANNOUNCE = `
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const done = write(chunk, ...rest);
  if (/^H2H_(BASE|PROBE)_URL=/m.test(String(chunk))) process.kill(process.pid, 'SIGTERM');
  return done;
};
process.argv = [process.execPath, process.env.H2H_TEST_BIN, ...JSON.parse(process.env.H2H_TEST_ARGS)];
await import(process.env.H2H_TEST_BIN);
`;

describe('a serving command stopped by SIGTERM as soon as it says where it serves exits 0', () => {
  for (const args of [
    ['mock', '--listen', '127.0.0.1:0'],
    ['probe', '--listen', '127.0.0.1:0'],
  ])
    it(`h2h ${args.join(' ')}`, async () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', SIGTERM_ON_ANNOUNCE], {
        env: { ...process.env, ...NO_TARGET_ENV, H2H_TEST_BIN: BIN, H2H_TEST_ARGS: JSON.stringify(args) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (c, s) => resolve([c, s])),
      );
      clearTimeout(killer);
      assert.match(out, /H2H_(BASE|PROBE)_URL=http:\/\/127\.0\.0\.1:\d+/, 'it said where it serves');
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, out);
    });
});

// Node's compile cache (compile-cache.ts): what Node 22.1 and later offer, with a temporary folder the user has.
const NO_CACHE = 'enableCompileCache' in nodeModule ? false : `Node ${process.version} has no compile cache`;

describe("h2h keeps V8's compiled code on disk", { skip: NO_CACHE }, () => {
  // The test runner's own cache (scripts/test.sh) is taken away: h2h must open its own, in its TMPDIR.
  const fresh = (): { dir: string; env: NodeJS.ProcessEnv } => {
    const dir = mkdtempSync(join(tmpdir(), 'h2h-ncc-'));
    return { dir, env: { ...NO_TARGET_ENV, TMPDIR: dir, NODE_COMPILE_CACHE: undefined } };
  };

  it('for itself and for the Playwright processes h2h contract starts, in TMPDIR/node-compile-cache', async () => {
    const { dir, env } = fresh();
    const r = await runCli(['contract', '--grep', 'BAL-1', '--reports-dir', join(dir, 'reports')], {
      env,
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Node keeps one folder per V8 flags: h2h's own, and Playwright's processes' (started with --no-maglev).
    const versions = readdirSync(join(dir, 'node-compile-cache'));
    assert.ok(versions.length >= 2, `folders: ${versions.join(', ')}`);
    for (const v of versions)
      assert.ok(readdirSync(join(dir, 'node-compile-cache', v)).length > 10, `${v} holds compiled modules`);
  });

  it('never where the folder cannot be made (Node loops forever there), nor with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    // Node 24.22 given a cache folder under /proc spins, deaf to SIGTERM: h2h must not hand it one.
    const r = await runCli(['contract', '--help'], {
      env: { TMPDIR: '/proc/self/h2h', NODE_COMPILE_CACHE: undefined },
      timeoutMs: 20_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const { dir, env } = fresh();
    const off = await runCli(['contract', '--help'], { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' } });
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(readdirSync(dir), []);
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/commands.ts';
import { cliMarkdown } from '../src/cli/reference.ts';
import { SETTINGS, settingsOf } from '../src/shared/settings.ts';
import { ROOT, runCli } from './helpers.ts';

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

// Issue 26, build 7: the first minutes with the CLI. Each test drives the built CLI (dist/) as a user would.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/commands.ts';
import type { ContractSummary } from '../src/report/summary.ts';
import { COMMAND_HELP, resolveSettings } from '../src/shared/settings.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { gateInProcess, ROOT, runCli } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'h2h-first-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
/** No target, key or config from the caller's environment. */
const clean = { H2H_BASE_URL: '', H2H_API_KEY: '', H2H_CONFIG: '', H2H_MAX_INVITES: '' };

describe('the first minutes with h2h', () => {
  it('h2h --version prints the package and its version, exit 0', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^h2h-contract ${pkg.version.replace(/\./g, '\\.')} \\(node v\\d+`));
  });

  it("h2h help CMD is CMD's own --help; an unknown CMD gets the closest command", async () => {
    const help = await runCli(['help', 'contract']);
    const own = await runCli(['contract', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: h2h contract /);
    assert.equal(help.stdout, own.stdout);
    const typo = await runCli(['help', 'contrat']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^h2h: unknown command 'contrat'; did you mean contract\?/);
  });

  it('a mistyped command gets a did-you-mean (exit 2); a word near no command gets the list alone', async () => {
    for (const [typo, meant] of [
      ['contrat', 'contract'],
      ['prob', 'probe'],
      ['lintt', 'lint'],
      ['dif', 'diff'],
    ]) {
      const r = await runCli([typo as string]);
      assert.equal(r.code, 2, typo);
      assert.match(r.stderr, new RegExp(`^h2h: unknown command '${typo}'; did you mean ${meant}\\?$`, 'm'));
      assert.equal(r.stdout, '');
    }
    const far = await runCli(['xyzzyplugh']);
    assert.equal(far.code, 2);
    assert.match(far.stderr, /^h2h: unknown command 'xyzzyplugh'\n/);
    assert.doesNotMatch(far.stderr, /did you mean/);
  });

  it('a negative number is refused as negative, from a flag, the environment or the config file (exit 2)', async () => {
    const config = join(tmp, 'negative.yaml');
    writeFileSync(config, 'max_invites: -2\n');
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [
        ['--max-invites', '-1'],
        {},
        /^h2h contract: --max-invites -1: must not be negative \(a whole number from 0 to 1000\)$/m,
      ],
      [['--max-invites=-1'], {}, /^h2h contract: --max-invites -1: must not be negative/m],
      [[], { H2H_MAX_INVITES: '-1' }, /^h2h contract: H2H_MAX_INVITES=-1: must not be negative/m],
      [['--config', config], {}, /: max_invites: -2: must not be negative/m],
      [['--timeout', '-5s'], {}, /^h2h contract: --timeout -5s: must not be negative$/m],
      [['--examples', '-3'], {}, /^h2h contract: --examples -3: must not be negative/m],
    ];
    for (const [args, env, message] of cases) {
      const r = await runCli(['contract', ...args], { env: { ...clean, ...env } });
      assert.equal(r.code, 2, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /needs a value/);
    }
  });

  it('every unknown config key is reported, each with the key it most likely meant (or the known keys)', async () => {
    const config = join(tmp, 'typos.yaml');
    writeFileSync(config, 'timout: 3s\nmax_invitez: 2\nallow_write: true\nzzzzzzzz: 1\n');
    const r = await runCli(['contract', '--config', config], { env: clean });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^ {2}- \$: unknown field 'timout'; did you mean 'timeout'\?$/m);
    assert.match(r.stderr, /^ {2}- \$: unknown field 'max_invitez'; did you mean 'max_invites'\?$/m);
    assert.match(r.stderr, /^ {2}- \$: unknown field 'allow_write'; did you mean 'allow_writes'\?$/m);
    assert.match(r.stderr, /^ {2}- \$: unknown field 'zzzzzzzz' \(the known fields: base_url, .*max_invites.*\)$/m);
    // A probe target's key too, where it stands.
    const probe = join(tmp, 'probe.yaml');
    writeFileSync(
      probe,
      'targets:\n  - name: a\n    base_url: http://127.0.0.1:9\n    api_key_env: K\n    shedule: none\n',
    );
    const p = await runCli(['probe', '--once', '--config', probe], { env: clean });
    assert.equal(p.code, 2, p.stderr);
    assert.match(p.stderr, /^ {2}- \$\.targets\[0\]: unknown field 'shedule'; did you mean 'schedule'\?$/m);
  });
});

describe('every --help ends with examples and an exit line, from the settings table', () => {
  it('each command: an Examples section of its own command lines, each one it accepts, and one Exit line', async () => {
    const dir = mkdtempSync(join(tmp, 'examples-'));
    // The files the examples name, so that each parses as it would in a project h2h init set up.
    writeFileSync(join(dir, 'h2h.config.yaml'), '{}\n');
    writeFileSync(join(dir, 'probe.yaml'), '{}\n');
    for (const entry of COMMANDS) {
      const r = await runCli([entry.name, '--help']);
      assert.equal(r.code, 0, entry.name);
      const [, examples = '', exit = ''] = /\nExamples:\n((?: {2}h2h .*\n)+)\nExit: (.+)\n$/.exec(r.stdout) ?? [];
      assert.ok(examples, `${entry.name} --help ends with Examples and Exit:\n${r.stdout.slice(-600)}`);
      assert.equal(exit, COMMAND_HELP[entry.name].exit);
      assert.match(exit, /^0 .*, 2 /, `${entry.name}: the exit line names 0 and 2`);
      assert.equal(r.stdout.match(/^Exit: /gm)?.length, 1, `${entry.name}: one Exit line`);
      const lines = examples.trimEnd().split('\n');
      assert.ok(lines.length >= 2, `${entry.name}: at least two examples`);
      const cmd = await entry.load();
      for (const line of lines) {
        const [words = '', what = ''] = line.trim().split(/ {2}# /);
        assert.ok(what, `${line}: says what it does`);
        const [h2h, name, ...argv] = words.split(' ').map((w) => w.replace(/^'(.*)'$/, '$1'));
        assert.deepEqual([h2h, name], ['h2h', entry.name], line);
        const cwd = process.cwd();
        process.chdir(dir);
        try {
          resolveSettings(entry.name, argv, {
            ...(cmd.positionals ? { positionals: cmd.positionals.range } : {}),
            env: {},
          });
        } catch (err) {
          assert.fail(`${line}: ${(err as Error).message}`);
        } finally {
          process.chdir(cwd);
        }
      }
    }
  });
});

describe('a gate run against the embedded simulator with --max-invites 0', () => {
  it('leaves every invite clause not judged by the cap, judges the rest, exits 0, and ends by how to open the report', async () => {
    // Every clause in process (the embedded simulator's target, the cap at 0); through the CLI, an invite clause
    // and a read: the exit code, the reasons, the console's last line and the report it names.
    const sim = await startSimulator();
    const whole = await gateInProcess(sim, { maxInvites: 0 }).finally(() => sim.close());
    const reports = join(tmp, 'max-invites-0');
    const r = await runCli(['contract', '--max-invites', '0', '--reports-dir', reports, '--grep', '^(INV-1|BAL-1) '], {
      env: clean,
      timeoutMs: 300_000,
    });
    assert.equal(r.code, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    const cli = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
    for (const [summary, invites] of [
      [whole.summary, ['INV-1', 'INV-2', 'INV-3', 'INV-4', 'INV-5', 'INV-6', 'BAL-2']],
      [cli, ['INV-1']],
    ] as const) {
      assert.equal(summary.result, 'held');
      const byId = new Map<string, (typeof summary.clauses)[number]>(summary.clauses.map((c) => [c.id, c]));
      for (const id of invites) {
        assert.equal(byId.get(id)?.status, 'not-judged', `${id}: ${JSON.stringify(byId.get(id))}`);
        assert.ok(
          byId.get(id)?.reasons.every((why) => /invite cap/.test(why)),
          `${id} not judged because of the cap: ${byId.get(id)?.reasons}`,
        );
      }
      // What reads the run's own invites back is not judged either, never inconclusive: the rest is judged.
      for (const c of summary.clauses) assert.equal(c.inconclusive, 0, `${c.id}: ${c.reasons}`);
    }
    for (const id of ['ENV-1', 'AUTH-1', 'BAL-1', 'HIS-1', 'HIS-3', 'TRX-1', 'TRX-2'])
      assert.equal(whole.summary.clauses.find((c) => c.id === id)?.status, 'held', id);
    assert.equal(cli.clauses.find((c) => c.id === 'BAL-1')?.status, 'held');
    // The last line: how to open the HTML report, with a command that is there and a report that is there.
    const last = r.stdout.trimEnd().split('\n').at(-1);
    assert.equal(last, `open the HTML report: npx playwright show-report ${join(reports, 'html')}`);
    assert.ok(existsSync(join(reports, 'html', 'index.html')));
    assert.ok(existsSync(join(ROOT, 'node_modules', '.bin', 'playwright')), 'npx finds playwright');
    assert.match(readFileSync(join(ROOT, 'README.md'), 'utf8'), /npx playwright show-report reports\/html/);
  });
});

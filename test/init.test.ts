import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { INIT_FILES } from '../src/cli/init-files.ts';
import { PROBE_FILE_EXTRAS } from '../src/probe/config.ts';
import { refuseKeyInFile } from '../src/redact.ts';
import { CONTRACT_FILE_EXTRAS } from '../src/run/config.ts';
import { COMMAND_NAMES, type CommandName, resolveSettings, settingsOf } from '../src/shared/settings.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { NO_TARGET_ENV, ROOT, runCli, runProcess, words } from './helpers.ts';

// `h2h init` in empty folders, as a user runs it; then the commands it wrote, run as written.

const folders: string[] = [];
function emptyFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-init-'));
  folders.push(dir);
  return dir;
}
const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');
const ALL = [INIT_FILES.gate, INIT_FILES.probe, INIT_FILES.github, INIT_FILES.gitlab];
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Which of the names are entries of a .tgz archive (a tar inside gzip), in the order asked. */
async function tarEntries(path: string, names: string[]): Promise<string[]> {
  const { gunzipSync } = await import('node:zlib');
  const tar = gunzipSync(readFileSync(path));
  const found = new Set<string>();
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar
      .subarray(at, at + 100)
      .toString()
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = Number.parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString()
        .replace(/\0.*$/s, '')
        .trim() || '0',
      8,
    );
    found.add(name);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return names.filter((n) => found.has(n));
}

/**
 * Checks every `h2h COMMAND ...` (bare, or after `npx [--yes] [--package P]`) among the lines: the command exists,
 * and so does each of its flags, with a value where the flag takes one. Returns how many lines it checked.
 */
function checkCommandLines(where: string, lines: string[]): number {
  let checked = 0;
  for (const line of lines) {
    const ws = words(line.trim());
    // `h2h`, or this toolkit's CLI run by node (`node .../dist/src/cli/main.js`).
    const at = ws.findIndex((w) => w === 'h2h' || w.endsWith('/dist/src/cli/main.js'));
    if (at < 0) continue;
    const [command, ...rest] = ws.slice(at + 1);
    assert.ok(COMMAND_NAMES.includes(command as CommandName), `${where}: ${line}: no command h2h ${command}`);
    const rows = settingsOf(command as CommandName);
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i] ?? '';
      if (!w.startsWith('--')) continue;
      const name = w.slice(2).split('=')[0] ?? '';
      const row = rows.find((s) => s.flag === name);
      assert.ok(row, `${where}: ${line}: h2h ${command} has no flag --${name}`);
      if (row.type !== 'boolean' && !w.includes('=')) {
        const value = rest[i + 1];
        assert.ok(value !== undefined && !value.startsWith('--'), `${where}: ${line}: --${name} needs a value`);
        i++;
      }
    }
    checked++;
  }
  return checked;
}

/** A config with every commented-out key written in: `# key: v` and `#   - key: v` lose their `# `. */
const uncomment = (text: string): string => text.replace(/^(\s*)# (?=( *)(?:[a-z_]+:|- ))/gm, '$1');

after(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('h2h init: set up in one command', () => {
  const dir = emptyFolder();
  let first: Awaited<ReturnType<typeof runCli>>;

  before(async () => {
    first = await runCli(['init'], { cwd: dir, env: NO_TARGET_ENV });
  });

  it('writes h2h.config.yaml and probe.yaml, lists them and the next commands; no key anywhere', () => {
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.match(first.stdout, /^h2h init: wrote h2h\.config\.yaml /m);
    assert.match(first.stdout, /^h2h init: wrote probe\.yaml /m);
    assert.doesNotMatch(first.stdout, /\.github|\.gitlab/, 'no CI file without --ci');
    const next = first.stdout.split('\nNext:\n')[1] ?? '';
    assert.match(next, / contract --config h2h\.config\.yaml\n/);
    assert.match(next, / probe --once --config probe\.yaml/);
    assert.match(next, /targets\[0\]\.base_url is a placeholder/);
    assert.ok(checkCommandLines('h2h init output', next.split('\n')) >= 3);
    // Not in a project that has h2h-contract, and no CI job to pack it for: the next commands run this very CLI,
    // never `npx h2h` (another package) nor a registry name (the npm registry has no h2h-contract).
    const cli = join(ROOT, 'dist', 'src', 'cli', 'main.js');
    assert.ok(next.includes(`  node ${cli} contract --config h2h.config.yaml\n`), next);
    assert.doesNotMatch(next, /npx|h2h-contract@/);
    assert.ok(!existsSync(join(dir, 'vendor')), 'nothing packed without --ci');

    const gate = read(dir, INIT_FILES.gate);
    assert.equal(parse(gate), null, 'every key of h2h.config.yaml is commented out');
    assert.match(gate, /H2H_API_KEY/);
    const probe = parse(read(dir, INIT_FILES.probe)) as { schedule: string; targets: Record<string, string>[] };
    assert.equal(probe.schedule, '*/30 * * * * *');
    assert.deepEqual(probe.targets, [
      { name: 'production', base_url: 'https://h2h.example', api_key_env: 'H2H_API_KEY' },
    ]);
  });

  it('h2h.config.yaml names every key `h2h contract --config` reads, each one valid when uncommented', () => {
    const path = join(dir, 'all-keys.yaml');
    writeFileSync(path, uncomment(read(dir, INIT_FILES.gate)));
    const data = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const keys = [
      ...settingsOf('contract').flatMap((s) => (s.file ? [s.file] : [])),
      ...Object.keys(CONTRACT_FILE_EXTRAS),
    ];
    assert.deepEqual(Object.keys(data).sort(), keys.sort());
    // Every value is read by its setting's type (a default as text, an example as a real value).
    const r = resolveSettings('contract', ['--config', path], {
      env: {},
      fileExtras: CONTRACT_FILE_EXTRAS,
      checkFile: refuseKeyInFile,
    });
    assert.equal(r.values['max-invites'], 10);
    assert.equal(r.values.timeout, 10_000);
  });

  it('probe.yaml: its commented-out keys are valid too, and a target takes each key but a key file', () => {
    const path = join(dir, 'all-probe-keys.yaml');
    writeFileSync(path, uncomment(read(dir, INIT_FILES.probe)));
    const data = parse(readFileSync(path, 'utf8')) as { targets: Record<string, unknown>[] };
    resolveSettings('probe', ['--config', path], {
      env: {},
      fileExtras: PROBE_FILE_EXTRAS,
      checkFile: refuseKeyInFile,
    });
    const targetKeys = Object.keys(PROBE_FILE_EXTRAS.targets.items.properties).filter((k) => k !== 'api_key_file');
    assert.deepEqual(Object.keys(data.targets[0] ?? {}).sort(), targetKeys.sort());
  });

  it('--ci github, then --ci gitlab: each adds its job, leaves the files that exist byte for byte, names them', async () => {
    const before = new Map([INIT_FILES.gate, INIT_FILES.probe].map((f) => [f, read(dir, f)]));
    const github = await runCli(['init', '--ci', 'github'], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(github.code, 0, github.stderr);
    assert.match(github.stdout, /^h2h init: wrote \.github\/workflows\/h2h-contract\.yml /m);
    for (const [f, text] of before) {
      assert.equal(read(dir, f), text, `${f} unchanged`);
      assert.match(
        github.stdout,
        new RegExp(`^h2h init: left ${f.replace('.', '\\.')} as it is: it exists, the same`, 'm'),
      );
    }
    const gitlab = await runCli(['init', '--ci', 'gitlab'], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(gitlab.code, 0, gitlab.stderr);
    assert.match(gitlab.stdout, /^h2h init: wrote \.gitlab-ci\.yml /m);

    const wf = parse(read(dir, INIT_FILES.github)) as {
      jobs: Record<string, { steps: { uses?: string; run?: string; if?: string; with?: Record<string, unknown> }[] }>;
    };
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const uses = (name: string) => steps.find((s) => s.uses?.startsWith(`${name}@`));
    assert.ok(uses('actions/checkout'));
    assert.equal(uses('actions/setup-node')?.with?.['node-version'], 24);
    const gate = steps.find((s) => /\bh2h contract\b/.test(s.run ?? ''));
    assert.equal(gate?.run, 'npx h2h contract --config h2h.config.yaml');
    // No package.json names it, no --package: h2h init packs this toolkit into vendor/, and the job installs that.
    const tarball = `vendor/h2h-contract-${VERSION}.tgz`;
    assert.equal(
      steps.find((s) => /^npm install /.test(s.run ?? ''))?.run,
      `npm install --no-save --no-package-lock --no-audit --no-fund ./${tarball}`,
    );
    assert.match(github.stdout, new RegExp(`^h2h init: wrote ${tarball.replace(/\./g, '\\.')} \\(.*commit it`, 'm'));
    assert.ok(github.stdout.includes(`commit h2h.config.yaml, ${tarball} and .github/workflows/h2h-contract.yml`));
    assert.doesNotMatch(github.stdout, /registry: until|h2h-contract@/);
    assert.ok(github.stdout.includes(`npx --package ./${tarball} h2h contract --config h2h.config.yaml`));
    assert.deepEqual(await tarEntries(join(dir, tarball), ['package/package.json', 'package/dist/src/cli/main.js']), [
      'package/package.json',
      'package/dist/src/cli/main.js',
    ]);
    const upload = uses('actions/upload-artifact');
    assert.equal(upload?.if, 'always()');
    assert.equal(upload?.with?.path, 'reports/');
    const report = steps.find((s) => s.with?.reporter === 'java-junit');
    assert.equal(report?.if, 'always()');
    assert.equal(report?.with?.path, 'reports/junit.xml');
    const summary = steps.find((s) => (s.run ?? '').includes('$GITHUB_STEP_SUMMARY'));
    assert.equal(summary?.if, 'always()');
    assert.match(summary?.run ?? '', /cat reports\/contract-summary\.md >> "\$GITHUB_STEP_SUMMARY"/);
    const runs = steps.flatMap((s) => (s.run ?? '').split('\n'));
    assert.equal(checkCommandLines(INIT_FILES.github, runs), 1);

    const gl = parse(read(dir, INIT_FILES.gitlab)) as Record<
      string,
      { image: string; script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } }
    >;
    const job = gl['h2h-contract'];
    assert.equal(job?.image, 'node:24-slim');
    assert.deepEqual(job?.script, [
      `npm install --no-save --no-package-lock --no-audit --no-fund ./${tarball}`,
      'npx h2h contract --config h2h.config.yaml',
    ]);
    assert.match(gitlab.stdout, /left vendor\/h2h-contract-\S+\.tgz as it is: it exists, and the job installs it/);
    assert.equal(job?.artifacts.when, 'always');
    assert.equal(job?.artifacts.reports.junit, 'reports/junit.xml');
    assert.deepEqual(job?.artifacts.paths, ['reports/']);
    assert.equal(checkCommandLines(INIT_FILES.gitlab, job?.script ?? []), 1);
  });

  it('a second h2h init overwrites nothing: every file byte for byte, each named', async () => {
    const files = new Map(ALL.map((f) => [f, read(dir, f)]));
    const tarball = `vendor/h2h-contract-${VERSION}.tgz`;
    const packed = readFileSync(join(dir, tarball));
    for (const ci of ['github', 'gitlab']) {
      const again = await runCli(['init', '--ci', ci], { cwd: dir, env: NO_TARGET_ENV });
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stdout, /wrote/);
      for (const f of [INIT_FILES.gate, INIT_FILES.probe, tarball, INIT_FILES[ci as 'github' | 'gitlab']])
        assert.ok(again.stdout.includes(`h2h init: left ${f} as it is: it exists`), `${ci}: ${f} named`);
    }
    for (const [f, text] of files) assert.equal(read(dir, f), text, `${f} unchanged`);
    assert.ok(readFileSync(join(dir, tarball)).equals(packed), `${tarball} unchanged`);
  });
});

describe('h2h init --base-url: the probe it writes probes that target', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  it('`h2h probe --once --config probe.yaml` exits 0 with the key in the variable probe.yaml names', async () => {
    const dir = emptyFolder();
    const init = await runCli(['init', '--base-url', sim.url], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(init.code, 0, init.stderr);
    assert.doesNotMatch(init.stdout, /placeholder/);
    assert.ok(init.stdout.includes(` contract --config h2h.config.yaml --base-url ${sim.url}`), init.stdout);
    const text = read(dir, INIT_FILES.probe);
    const target = (parse(text) as { targets: { base_url: string; api_key_env: string }[] }).targets[0];
    assert.equal(target?.base_url, sim.url);
    assert.ok(!text.includes(sim.apiKey) && !read(dir, INIT_FILES.gate).includes(sim.apiKey), 'no key in a file');
    const env = { ...NO_TARGET_ENV, [target?.api_key_env ?? '']: sim.apiKey };
    const probe = await runCli(['probe', '--once', '--config', INIT_FILES.probe], { cwd: dir, env });
    assert.equal(probe.code, 0, probe.stdout + probe.stderr);
    assert.match(probe.stdout, /one round of 1 target\(s\), every probe succeeded/);
    assert.match(probe.stdout, /production +saldo-user/);
    assert.ok(!(probe.stdout + probe.stderr).includes(sim.apiKey), 'the key is never printed');
  });

  it('H2H_BASE_URL is the base URL when no flag gives one: nothing asked', async () => {
    const dir = emptyFolder();
    const init = await runCli(['init'], { cwd: dir, env: { ...NO_TARGET_ENV, H2H_BASE_URL: sim.url } });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(
      (parse(read(dir, INIT_FILES.probe)) as { targets: { base_url: string }[] }).targets[0]?.base_url,
      sim.url,
    );
  });
});

describe('h2h init: where the folder decides', () => {
  it('a project with h2h-contract in package.json and package-lock.json: the CI job runs its own copy after npm ci', async () => {
    const dir = emptyFolder();
    writeFileSync(join(dir, 'package.json'), '{"name": "client", "devDependencies": {"h2h-contract": "^0.1.0"}}\n');
    writeFileSync(join(dir, 'package-lock.json'), '{}\n');
    const r = await runCli(['init', '--ci', 'github'], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(r.code, 0, r.stderr);
    const steps = Object.values(
      (parse(read(dir, INIT_FILES.github)) as { jobs: Record<string, { steps: { run?: string; with?: object }[] }> })
        .jobs,
    ).flatMap((j) => j.steps);
    const runs = steps.map((s) => s.run ?? '');
    assert.ok(runs.includes('npm ci'));
    assert.ok(runs.includes('npx h2h contract --config h2h.config.yaml'));
    assert.ok(steps.some((s) => (s.with as Record<string, unknown> | undefined)?.cache === 'npm'));
  });

  it('a file that cannot be written: exit 2, named with the reason; the others are written', async () => {
    const dir = emptyFolder();
    writeFileSync(join(dir, '.github'), 'a file where the folder would go\n');
    const r = await runCli(['init', '--ci', 'github'], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^h2h init: could not write \.github\/workflows\/h2h-contract\.yml \(.*\): E[A-Z]+/m);
    assert.match(r.stdout, /^h2h init: wrote h2h\.config\.yaml /m);
    assert.match(r.stdout, /^h2h init: wrote probe\.yaml /m);
  });

  it('an existing .gitlab-ci.yml is kept, and the job to add to it is printed', async () => {
    const dir = emptyFolder();
    const own = 'stages: [test]\nunit:\n  script: [make test]\n';
    writeFileSync(join(dir, INIT_FILES.gitlab), own);
    const r = await runCli(['init', '--ci', 'gitlab'], { cwd: dir, env: NO_TARGET_ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(read(dir, INIT_FILES.gitlab), own);
    assert.match(r.stdout, /left \.gitlab-ci\.yml as it is: it exists, and differs/);
    const job = r.stdout.split('the job to add to .gitlab-ci.yml')[1]?.split('\nNext:')[0] ?? '';
    const parsed = parse(job.slice(job.indexOf('\n'))) as Record<string, { artifacts: { when: string } }>;
    assert.equal(parsed['h2h-contract']?.artifacts.when, 'always');
  });
});

/** Runs a shell line as a CI runner does (`bash -e`), with a deadline; never leaves the child behind. */
function shell(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 300_000,
): Promise<{ code: number | null; out: string }> {
  return runProcess('bash', ['-e', '-c', line], {
    cwd,
    env: { ...process.env, ...env },
    timeoutMs,
    what: line,
  }).then((r) => ({ code: r.code, out: `${r.stdout}${r.stderr}` }));
}

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}

/**
 * The GitHub job's shell steps, run in order in a fresh checkout as the runner runs them: the repository's secrets
 * absent (a fork's pull request), so the gate runs against its embedded simulator; `if: always()` steps run after a
 * failure too. Returns each step's exit code and output.
 */
async function runJob(dir: string, summaryFile: string): Promise<{ step: Step; code: number | null; out: string }[]> {
  const wf = parse(read(dir, INIT_FILES.github)) as { jobs: Record<string, { steps: Step[] }> };
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
  const done: { step: Step; code: number | null; out: string }[] = [];
  for (const step of steps) {
    if (!step.run) continue;
    if (done.some((d) => d.code !== 0) && step.if !== 'always()') continue;
    // `${{ secrets.X }}` of an absent secret is the empty string.
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, String(v).replace(/\$\{\{\s*secrets\.\w+\s*\}\}/g, '')]),
    );
    const r = await shell(step.run, dir, { ...NO_TARGET_ENV, ...env, GITHUB_STEP_SUMMARY: summaryFile, CI: 'true' });
    done.push({ step, ...r });
  }
  return done;
}

describe('the CI job h2h init writes installs the toolkit as it is today: from a tarball in the repository', () => {
  const root = emptyFolder();
  const dir = join(root, 'client');
  let tarball = '';
  let init: Awaited<ReturnType<typeof runCli>>;
  before(async () => {
    // h2h init --ci github with no --package, in a folder with no package.json (this repository's built CLI; dist/
    // is built before the tests): it packs this toolkit into vendor/ (npm pack, no build run), for the job.
    mkdirSync(dir, { recursive: true });
    init = await runCli(['init', '--ci', 'github'], { cwd: dir, env: NO_TARGET_ENV, timeoutMs: 180_000 });
    tarball = join(dir, 'vendor', `h2h-contract-${VERSION}.tgz`);
  });

  it('without --package, in a folder with no package.json: the job installs the tarball h2h init packed, the gate holds', async () => {
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.ok(existsSync(tarball), init.stdout);
    const vendored = `./vendor/${basename(tarball)}`;
    // The next command h2h init prints works as printed: npx with the tarball it packed.
    const next = `npx --yes --package ${vendored} h2h --version`;
    assert.ok(init.stdout.includes(`npx --package ${vendored} h2h contract --config h2h.config.yaml`), init.stdout);
    const version = await shell(next, dir, {});
    assert.match(version.out, new RegExp(`^h2h-contract ${VERSION.replace(/\./g, '\\.')} `, 'm'), version.out);
    // The README's way for a repository without package.json, --package named: the GitLab job, the same commands.
    const gitlab = await shell(`npx --yes --package ${vendored} h2h init --ci gitlab --package ${vendored}`, dir, {});
    assert.equal(gitlab.code, 0, gitlab.out);
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });

    // The job as written, the gate included (`h2h contract --config h2h.config.yaml`, no target: the embedded
    // simulator): the files it uploads, reports and appends to the job summary are the ones the gate wrote.
    const summaryFile = join(root, 'step-summary.md');
    const ran = await runJob(dir, summaryFile);
    const runs = ran.map((r) => r.step.run?.trim());
    assert.equal(runs[0], `npm install --no-save --no-package-lock --no-audit --no-fund ${vendored}`);
    assert.equal(runs[1], 'npx h2h contract --config h2h.config.yaml');
    const job = (parse(read(dir, INIT_FILES.gitlab)) as Record<string, { script: string[] }>)['h2h-contract'];
    assert.deepEqual(job?.script, runs.slice(0, 2));
    for (const r of ran) assert.equal(r.code, 0, `${r.step.name ?? r.step.run}:\n${r.out.slice(-3000)}`);
    const gate = ran[1]?.out ?? '';
    assert.match(gate, /^# H2H contract: holds$/m);
    assert.match(gate, /^open the HTML report: npx playwright show-report reports\/html$/m);
    assert.match(readFileSync(summaryFile, 'utf8'), /^# H2H contract: holds$/m);
    assert.match(read(dir, 'reports/junit.xml'), /<testsuites/);
    // The report's command works where the toolkit was installed.
    const playwright = await shell('npx --no-install playwright --version', dir, {});
    assert.equal(playwright.code, 0, playwright.out);
  });

  it('installed with npm install --save-dev ./vendor/TARBALL (the README): the job runs npm ci, then its h2h', async () => {
    assert.ok(existsSync(tarball), 'the tarball h2h init packed');
    const dir = join(root, 'app');
    mkdirSync(join(dir, 'vendor'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name": "app", "private": true}\n');
    const vendored = `./vendor/${basename(tarball)}`;
    copyFileSync(tarball, join(dir, vendored));
    const install = await shell(`npm install --save-dev --no-audit --no-fund ${vendored}`, dir, {});
    assert.equal(install.code, 0, install.out);
    const init = await shell('npx h2h init --ci github', dir, { ...NO_TARGET_ENV });
    assert.equal(init.code, 0, init.out);
    const wf = parse(read(dir, INIT_FILES.github)) as { jobs: Record<string, { steps: Step[] }> };
    const runs = Object.values(wf.jobs)
      .flatMap((j) => j.steps)
      .map((s) => s.run?.trim())
      .filter(Boolean);
    assert.deepEqual(runs.slice(0, 2), ['npm ci', 'npx h2h contract --config h2h.config.yaml']);
    // The install step as written, in a fresh checkout (no node_modules): the h2h it runs is there after it.
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    const ci = await shell('npm ci --no-audit --no-fund', dir, { CI: 'true' });
    assert.equal(ci.code, 0, ci.out);
    const version = await shell('npx --no-install h2h --version', dir, {});
    assert.match(version.out, /^h2h-contract \d+\.\d+\.\d+ /);
  });
});

describe('docs/gate.md shows the CI jobs h2h init writes (one source)', () => {
  it('its GitHub and GitLab blocks are, byte for byte, the files `h2h init --ci` writes in a project that installed h2h-contract', async () => {
    // The project docs/gate.md describes: package.json names h2h-contract beside a package-lock.json.
    const dir = emptyFolder();
    writeFileSync(join(dir, 'package.json'), '{"name": "client", "devDependencies": {"h2h-contract": "^0.1.0"}}\n');
    writeFileSync(join(dir, 'package-lock.json'), '{}\n');
    for (const ci of ['github', 'gitlab']) {
      const r = await runCli(['init', '--ci', ci], { cwd: dir, env: NO_TARGET_ENV });
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
    const page = readFileSync(join(ROOT, 'docs', 'gate.md'), 'utf8');
    const jobs = [...page.matchAll(/```yaml\n(# Written by h2h init[\s\S]*?)```/g)].map((m) => m[1]);
    assert.equal(jobs.length, 2, 'docs/gate.md shows two jobs written by h2h init: GitHub, then GitLab');
    for (const [i, file] of [INIT_FILES.github, INIT_FILES.gitlab].entries())
      assert.equal(
        jobs[i],
        read(dir, file),
        `docs/gate.md's block differs from the ${file} that h2h init --ci writes: put the file's text in the block`,
      );
    // And nothing else in the page passes for a CI job of its own.
    assert.doesNotMatch(page, /```yaml\n(?!# Written by h2h init)[^`]*\b(runs-on|script):/);
  });
});

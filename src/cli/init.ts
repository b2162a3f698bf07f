import { spawnSync } from 'node:child_process';
import {
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { PROBE_FILE_EXTRAS } from '../probe/config.js';
import { packageRoot } from '../shared/package-root.js';
import { defaultOf, envName, get, helpOf, type Setting, settingsOf } from '../shared/settings.js';
import { shellWord } from '../shared/shell.js';
import { type Command, EXIT, type Io } from './command.js';

/** The files `h2h init` writes, relative to the folder it runs in. */
export const INIT_FILES = {
  gate: 'h2h.config.yaml',
  probe: 'probe.yaml',
  github: '.github/workflows/h2h-contract.yml',
  gitlab: '.gitlab-ci.yml',
} as const;

/** Where the gate writes what CI keeps: the default of --reports-dir, the reporter's JUnit file, the summary. */
const REPORTS = 'reports';
const JUNIT = `${REPORTS}/junit.xml`;
const SUMMARY_MD = `${REPORTS}/contract-summary.md`;
/** The variable every written file takes the key from (the gate's own, H2H_API_KEY). */
const KEY_ENV = 'H2H_API_KEY';
/** The probe target's base URL when none is given: a reserved name (RFC 2606) that never resolves. */
const PLACEHOLDER_URL = 'https://h2h.example';
const PROBE_TARGET = 'production';

/** Example values of the gate's file keys that have no default (shown commented out, marked as examples). */
const EXAMPLES: Record<string, unknown> = {
  base_url: PLACEHOLDER_URL,
  api_key_file: '/run/secrets/h2h-api-key',
  api_key_env: 'PROVIDER_API_KEY',
  product: 'CODE',
  kind: 'akrab',
  msisdns: ['081200000001'],
  trx_id: 'TRX-ID',
  known_statuses: ['SUCCESS', 'INVALID_API_KEY', 'INVALID_DATE', 'TRX_NOT_FOUND', 'DUPLICATE_TRX_ID'],
  known_http_statuses: [400, 401, 404],
  baseline: 'baseline/contract-summary.json',
  rate_limit: '10/s',
  seed: 12345,
  concurrency: 4,
};

/** A value of a setting's type, for a key with neither a default nor an example above. */
function exampleOf(s: Setting): unknown {
  const byType: Partial<Record<Setting['type'], unknown>> = {
    boolean: false,
    integer: s.min ?? 1,
    duration: '1s',
    rate: '10/s',
    url: PLACEHOLDER_URL,
    listen: '127.0.0.1:0',
    list: [],
    enum: s.values?.[0],
  };
  return byType[s.type] ?? s.arg ?? 'VALUE';
}

/** What a probe target may add, each with an example value and what it does (keys the schema has, in its order). */
const TARGET_OPTIONS: Record<string, { example: unknown; what: string }> = {
  trx_id: {
    example: 'TRX-ID',
    what: 'the transaction cek-trx-id looks up (default: the newest an earlier history read showed)',
  },
  schedule: { example: '*/30 * * * * *', what: "its own schedule (default: the schedule above; 'none': /probe only)" },
  timeout: { example: '10s', what: 'its own deadline per request (default: the timeout above)' },
  proxy_url: {
    example: 'http://proxy.internal:3128',
    what: "its forward proxy, whatever NO_PROXY says (default: the environment's proxy settings)",
  },
  tls: {
    example: { ca_file: 'ca.pem', server_name: 'h2h.internal', insecure_skip_verify: false },
    what: 'HTTPS: the CAs to trust (a file relative to this one), the name on the certificate, whether to skip the check',
  },
};

/** The optional keys of a probe target, commented out: every one the probe's schema takes. */
function targetOptions(): string[] {
  const written = new Set(['name', 'base_url', 'api_key_env', 'api_key_file']);
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(PROBE_FILE_EXTRAS.targets.items.properties)) {
    if (written.has(key)) continue;
    const option = TARGET_OPTIONS[key];
    const example = option?.example ?? ((schema as { type?: string }).type === 'boolean' ? false : 'VALUE');
    lines.push(...comment(sentence(option?.what ?? key), '    '), `    # ${key}: ${yamlValue(example)}`);
  }
  return lines;
}

/** A scalar or a flow collection, as YAML writes it (`10s`, `"*\/30 * * * * *"`, `[400, 401]`). */
function yamlValue(v: unknown): string {
  return stringify(v, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trim();
}

/** A setting's default as its config-file value: a boolean, a number, a list or text. */
function fileValue(s: Setting, text: string): unknown {
  if (s.type === 'boolean') return text === 'true';
  if (s.type === 'integer') return Number(text);
  if (s.type === 'list') return text.split(',').filter(Boolean);
  return text;
}

/** Comment lines of at most `width` columns, each beginning with `indent# `. */
function comment(text: string, indent = '', width = 118): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + 2 + line.length + 1 + word.length > width) {
      lines.push(`${indent}# ${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${indent}# ${line}`);
  return lines;
}

/** The first letter in upper case: a sentence, and never read as a commented-out `key:`. */
const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** One setting as the files show it: its help, flag and variable, then the key commented out at its default. */
function settingLines(s: Setting, command: 'contract' | 'probe', example?: unknown): string[] {
  const key = s.file ?? '';
  const d = defaultOf(s, command);
  const where = [`--${s.flag}`, envName(s)].filter(Boolean).join(', ');
  const value = yamlValue(d !== undefined ? fileValue(s, d) : (example ?? EXAMPLES[key] ?? exampleOf(s)));
  return [
    ...comment(`${sentence(helpOf(s, command))} [${where}]`),
    `# ${key}: ${value}${d === undefined ? '  # an example: no default' : ''}`,
  ];
}

/** h2h.config.yaml: every key `h2h contract --config` reads, commented out at its default, and never the key. */
export function gateConfig(version: string, baseUrl?: string): string {
  const lines = [
    `# ${INIT_FILES.gate}: the contract gate's settings, read by \`h2h contract --config ${INIT_FILES.gate}\`.`,
    ...comment(
      `Written by h2h init (h2h-contract ${version}). Every key the gate reads from this file is here, commented out at its default (or with an example where it has none): uncomment what you change. A flag wins over its environment variable, which wins over this file, which wins over the default (the brackets name both). With no base_url (and no H2H_BASE_URL) the gate runs against its embedded simulator, writes allowed.`,
    ),
    '#',
    ...comment(
      `The API key is never in this file (h2h refuses a config file that holds one): set ${KEY_ENV} in the environment (a CI secret), or name a file (api_key_file) or another variable (api_key_env) below.`,
    ),
  ];
  for (const s of settingsOf('contract')) {
    if (!s.file) continue;
    lines.push('', ...settingLines(s, 'contract', s.file === 'base_url' ? (baseUrl ?? PLACEHOLDER_URL) : undefined));
    if (s.file === 'api_key_file')
      lines.push(
        '',
        ...comment(
          `The name of an environment variable that holds the key, when it is not ${KEY_ENV} [config file only]`,
        ),
        `# api_key_env: ${yamlValue(EXAMPLES.api_key_env)}  # an example: no default`,
      );
  }
  lines.push(
    '',
    ...comment(
      'Clauses the team accepts as broken for now: their findings are reported as warnings with the reason, not failed [config file only]',
    ),
    '# deviations:',
    '#   - clause: HIS-3',
    "#     reason: the provider's history order differs; reported to the provider, revisit next release",
  );
  return `${lines.join('\n')}\n`;
}

/** probe.yaml: one target whose key comes from an environment variable, a schedule, the rest at its defaults. */
export function probeConfig(version: string, baseUrl?: string): string {
  // base_url, api_key_file and trx_id at the top level describe one more target: targets: says it all.
  const targetKeys = new Set(['base_url', 'api_key_file', 'trx_id']);
  const lines = [
    `# ${INIT_FILES.probe}: the probe's settings, read by \`h2h probe --config ${INIT_FILES.probe}\` (with --once: one round, then exit).`,
    ...comment(
      `Written by h2h init (h2h-contract ${version}). The probe calls the read-only endpoints of every target on its schedule, judges each answer by the contract's clauses and serves Prometheus metrics (/metrics, /probe?target=NAME). Keys commented out are at their default; a flag or its environment variable wins over this file.`,
    ),
    '#',
    ...comment(
      'Keys are never in this file: each target names the environment variable (api_key_env) or the file (api_key_file, relative to this file) that holds its key.',
    ),
  ];
  for (const s of settingsOf('probe')) {
    if (!s.file || targetKeys.has(s.file)) continue;
    const lineset = settingLines(s, 'probe');
    // The schedule is written, not commented out: it is what a probe is for.
    if (s.file === 'schedule') lineset[lineset.length - 1] = (lineset.at(-1) ?? '').replace(/^# /, '');
    lines.push('', ...lineset);
  }
  const url = baseUrl ?? PLACEHOLDER_URL;
  lines.push(
    '',
    'targets:',
    ...comment(
      'Each target: a name (its label in every metric: letters, digits, _ and -), its base_url, and where its key is: api_key_env or api_key_file, one of them. What a target may add is below it, commented out.',
      '  ',
    ),
    `  - name: ${PROBE_TARGET}`,
    `    base_url: ${yamlValue(url)}${baseUrl ? '' : '  # a placeholder: your API (h2h init --base-url URL writes it)'}`,
    `    api_key_env: ${KEY_ENV}  # the variable that holds its key`,
    ...targetOptions(),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * How CI and the next steps run h2h: the project's own copy after `npm ci` when its package.json and lockfile name
 * h2h-contract (from a tarball in the repository, a git URL or the registry: whatever npm install was given), else
 * the job installs it first from `--package SPEC` (a tarball, a git URL), by default from the toolkit that runs
 * h2h init, packed into the repository (`vendored`): the npm registry has no h2h-contract yet.
 */
interface Runner {
  /** CI: install the project's dependencies first (a package-lock.json names h2h-contract). */
  install: boolean;
  /** CI: the command that installs h2h-contract (`npm ci`, or `npm install ... SPEC`). */
  installStep: string;
  /** The command that runs h2h in CI. */
  ci: string;
  /** The command that runs h2h here, now. */
  local: string;
  /** Where the job installs h2h-contract from when the project does not name it (undefined: it does). */
  spec?: string;
  /** The tarball h2h init packs the toolkit into for the job (no --package given): the spec, without its `./`. */
  vendored?: string;
  /** What the job installs comes by git (a git URL given, or the one package.json names): the image needs git. */
  git: boolean;
}

/** A spec npm installs with git (node:24-slim has none). */
function isGitSpec(spec: string): boolean {
  return /^(git\+|git:|github:|gitlab:|bitbucket:)|\.git(#.*)?$/.test(spec);
}

/** The tarball of this version, as `npm pack` names it, where the job installs it from by default. */
const vendoredTarball = (version: string): string => `vendor/h2h-contract-${version}.tgz`;

/** This toolkit's CLI, run by node: what runs h2h here when the folder has no h2h-contract and no spec is given. */
const THIS_CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

function runnerFor(dir: string, version: string, given: string | undefined, ci: boolean): Runner {
  let pkg: { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> } = {};
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    // No package.json (or not JSON): not a Node project; the job installs h2h-contract by itself.
  }
  const declared =
    pkg.name === 'h2h-contract' ||
    'h2h-contract' in (pkg.dependencies ?? {}) ||
    'h2h-contract' in (pkg.devDependencies ?? {});
  const install = declared && existsSync(join(dir, 'package-lock.json'));
  // `npx h2h` only where it finds this package's bin: elsewhere npx would look up a package named h2h.
  const installed =
    pkg.name === 'h2h-contract' || existsSync(join(dir, 'node_modules', 'h2h-contract', 'package.json'));
  // A job with nothing to install from gets the toolkit that runs now, packed into the repository: a path in the
  // checkout, which npm installs as it is (no registry name, no git in the image). Without a job, nothing is packed.
  // Run here, h2h is the same tarball once packed (an earlier h2h init --ci).
  const tarball = vendoredTarball(version);
  const vendored = !install && given === undefined && ci ? tarball : undefined;
  const packed = !install && given === undefined && (ci || existsSync(join(dir, tarball)));
  const spec = given ?? (packed ? `./${tarball}` : undefined);
  return {
    install,
    installStep: install
      ? 'npm ci'
      : `npm install --no-save --no-package-lock --no-audit --no-fund ${shellWord(spec ?? '')}`,
    ci: 'npx h2h',
    // `npx h2h` only where npx finds this package's bin; else the same tarball or spec as the job, else this very CLI.
    local: installed ? 'npx h2h' : spec ? `npx --package ${shellWord(spec)} h2h` : `node ${shellWord(THIS_CLI)}`,
    ...(install || spec === undefined ? {} : { spec }),
    ...(vendored ? { vendored } : {}),
    git: isGitSpec(
      (install ? (pkg.devDependencies?.['h2h-contract'] ?? pkg.dependencies?.['h2h-contract']) : spec) ?? '',
    ),
  };
}

/**
 * Packs the toolkit that runs h2h init (`npm pack`, its scripts not run: dist/ is built) into the project's
 * folder, for the job to install; never over a file that exists (that one is kept, and the job installs it).
 */
function packToolkit(dir: string, path: string): Outcome {
  const what = 'this toolkit, packed for the CI job to install: commit it with the job';
  const full = join(dir, path);
  if (existsSync(full)) return { path, what, status: 'exists' };
  const failed = (why: string): Outcome => ({
    path,
    what,
    status: 'failed',
    reason: `${why}; make it with \`npm pack\` in a checkout of h2h-contract and copy it there, or give --package SPEC (a tarball or a git URL)`,
  });
  const tmp = mkdtempSync(join(tmpdir(), 'h2h-init-pack-'));
  try {
    // npm itself: the one that started this process (npx, npm exec), else the npm beside this node, else on PATH.
    const npmCli = process.env.npm_execpath;
    const beside = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
    const [cmd, pre] =
      npmCli && /npm-cli\.js$/.test(npmCli)
        ? [process.execPath, [npmCli]]
        : [existsSync(beside) ? beside : 'npm', [] as string[]];
    const packed = spawnSync(
      cmd,
      [...pre, 'pack', '--ignore-scripts', '--offline', '--silent', '--pack-destination', tmp],
      { cwd: packageRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    const name = packed.stdout?.trim().split('\n').at(-1) ?? '';
    if (packed.status !== 0 || !name || !existsSync(join(tmp, name)))
      return failed(
        `npm pack failed (${packed.error?.message ?? `exit ${packed.status}`}${packed.stderr ? `: ${packed.stderr.trim().split('\n')[0]}` : ''})`,
      );
    mkdirSync(dirname(full), { recursive: true });
    copyFileSync(join(tmp, name), full, constants.COPYFILE_EXCL);
    return { path, what, status: 'wrote' };
  } catch (err) {
    return failed((err as Error).message.split('\n')[0] ?? String(err));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const GATE_RUN = `contract --config ${INIT_FILES.gate}`;

export function githubWorkflow(version: string, runner: Runner): string {
  const setup = runner.install
    ? ['          cache: npm', '      - run: npm ci']
    : [
        '          package-manager-cache: false',
        '      - name: Install h2h-contract',
        `        run: ${runner.installStep}`,
      ];
  return `# Written by h2h init (h2h-contract ${version}): the contract gate (h2h contract) on every push and pull request.
# Repository secrets (Settings > Secrets and variables > Actions): H2H_BASE_URL, your API's base URL, and
# ${KEY_ENV}, its key. Without H2H_BASE_URL the gate runs against its embedded simulator (a fork's pull request
# gets no secrets). Read-only unless ${INIT_FILES.gate} allows writes. Exit 1 a clause is violated, 2 usage or
# an unreachable target, 4 inconclusive (allow_inconclusive: true makes it 0).
# What it keeps: the job summary (${SUMMARY_MD}), a test report (${JUNIT}) and the artifact
# h2h-contract-reports (${REPORTS}/, the default of reports_dir: change both together).
name: h2h contract
on:
  push:
  pull_request:
  workflow_dispatch:
  # schedule:
  #   - cron: '17 6 * * *'  # daily: a provider can change without a release of yours
permissions:
  contents: read
  checks: write # the test report
concurrency:
  group: h2h-contract-\${{ github.ref }}
  cancel-in-progress: true
jobs:
  contract:
    name: h2h contract
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-node@v5
        with:
          node-version: 24
${setup.join('\n')}
      - name: Run the contract gate
        env:
          H2H_BASE_URL: \${{ secrets.H2H_BASE_URL }}
          ${KEY_ENV}: \${{ secrets.${KEY_ENV} }}
        run: ${runner.ci} ${GATE_RUN}
      - name: Contract summary
        if: always()
        run: |
          if [ -f ${SUMMARY_MD} ]; then cat ${SUMMARY_MD} >> "$GITHUB_STEP_SUMMARY"; fi
      - name: Test report
        if: always()
        # A pull request from a fork may not write checks: the report is then only in the artifact.
        continue-on-error: true
        uses: dorny/test-reporter@v2
        with:
          name: h2h contract clauses
          path: ${JUNIT}
          reporter: java-junit
          fail-on-error: false
          fail-on-empty: false
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v6
        with:
          name: h2h-contract-reports
          path: ${REPORTS}/
          if-no-files-found: ignore
`;
}

/** The GitLab job alone (what to add to a .gitlab-ci.yml that exists). */
function gitlabJob(runner: Runner): string {
  return `h2h-contract:
  image: ${runner.git ? 'node:24' : 'node:24-slim'}
  stage: test
  timeout: 30m
  script:
    - ${runner.installStep}
    - ${runner.ci} ${GATE_RUN}
  artifacts:
    when: always
    expire_in: 30 days
    paths:
      - ${REPORTS}/
    reports:
      junit: ${JUNIT}
`;
}

export function gitlabCi(version: string, runner: Runner): string {
  return `# Written by h2h init (h2h-contract ${version}): the contract gate (h2h contract) in every pipeline.
# CI/CD variables (Settings > CI/CD > Variables): H2H_BASE_URL, your API's base URL, and ${KEY_ENV}, its key
# (masked; protected if only protected branches may reach the API). Without H2H_BASE_URL the gate runs against
# its embedded simulator. Read-only unless ${INIT_FILES.gate} allows writes. Exit 1 a clause is violated,
# 2 usage or an unreachable target, 4 inconclusive. The summary is in the job log; ${JUNIT} is the test
# report of the pipeline and merge request; ${REPORTS}/ is kept (the default of reports_dir: change both
# together), also when the gate fails.
${gitlabJob(runner)}`;
}

/** What became of one file. */
type Outcome =
  | { path: string; what: string; status: 'wrote' }
  | { path: string; what: string; status: 'exists'; same?: boolean }
  | { path: string; what: string; status: 'failed'; reason: string };

/** Writes a file that is not there; never replaces one (O_EXCL: not even one made in between, nor a symlink). */
function writeNew(dir: string, path: string, what: string, text: string): Outcome {
  const full = join(dir, path);
  const failed = (err: unknown, why?: string): Outcome => {
    const e = err as NodeJS.ErrnoException;
    return { path, what, status: 'failed', reason: why ?? e.message.split('\n')[0] ?? String(err) };
  };
  try {
    mkdirSync(dirname(full), { recursive: true });
  } catch (err) {
    // A file where a folder must be (.github, say): the file cannot be written, whatever the code says.
    const code = (err as NodeJS.ErrnoException).code;
    const notFolder = code === 'EEXIST' || code === 'ENOTDIR';
    return failed(err, notFolder ? `${code}: a file is where the folder ${dirname(path)} must be` : undefined);
  }
  try {
    writeFileSync(full, text, { flag: 'wx' });
    return { path, what, status: 'wrote' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return failed(err);
    let same = false;
    try {
      same = readFileSync(full, 'utf8') === text;
    } catch {
      // A folder or an unreadable file of that name: it is there, and it is not this.
    }
    return { path, what, status: 'exists', same };
  }
}

function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Paragraphs (split by blank lines) wrapped at `width` columns; a `code span` is never split. */
function reflow(text: string, width = 116): string {
  return text
    .split(/\n\s*\n/)
    .map((para) => {
      const lines: string[] = [];
      let line = '';
      for (const [word] of para.matchAll(/(?:`[^`]*`|[^\s`])+/g)) {
        const w = word.replace(/\s+/g, ' ');
        if (line && line.length + 1 + w.length > width) {
          lines.push(line);
          line = w;
        } else line = line ? `${line} ${w}` : w;
      }
      return [...lines, line].join('\n');
    })
    .join('\n\n');
}

export const init: Command = {
  name: 'init',
  about: reflow(`Asks nothing it can infer. Writes into the current folder ${INIT_FILES.gate}, with every key of
\`h2h contract --config ${INIT_FILES.gate}\` commented out at its default and never the key (that comes from
${KEY_ENV}), and ${INIT_FILES.probe}: the probe, one target whose key comes from the variable ${KEY_ENV}
through api_key_env, and a schedule. The target's base URL is --base-url, or H2H_BASE_URL when set, else a
placeholder to edit.

--ci github adds ${INIT_FILES.github}: Node 24, the gate with H2H_BASE_URL and ${KEY_ENV} from the
repository's secrets, ${SUMMARY_MD} appended to the job summary, ${JUNIT} as a test report and ${REPORTS}/ as
an artifact, also when the gate fails. --ci gitlab adds ${INIT_FILES.gitlab}: node:24-slim, ${JUNIT} as the
JUnit report, ${REPORTS}/ kept \`when: always\`. The job runs the project's own h2h after \`npm ci\` when its
package.json names h2h-contract beside a package-lock.json (npm install took it from a tarball, a git URL or
the registry); else it installs h2h-contract first, from --package SPEC (a tarball in the repository, a git
URL), by default from vendor/h2h-contract-VERSION.tgz: h2h init packs the toolkit it runs from into that file
(npm pack; never over a file that exists), to commit with the job. The npm registry has no h2h-contract yet.

--package SPEC: where the CI job installs h2h-contract from when package.json does not name it (then nothing is
packed). For a git URL (given, or the one package.json names) the GitLab job takes the node:24 image (it has git).

It never overwrites a file: one that exists is left as it is and named (saying whether it is what h2h init
writes), and the others are still written, so that running it again, or again with --ci, adds only what is
missing. Then it lists the commands to run next. Node 24 LTS is the target; Node 20.10 and later work.`),
  async run(settings, io) {
    const dir = process.cwd();
    const v = version();
    const baseUrl = get.str(settings, 'base-url');
    const ci = get.str(settings, 'ci') as 'github' | 'gitlab' | undefined;
    const runner = runnerFor(dir, v, get.str(settings, 'package'), ci !== undefined);
    const outcomes: Outcome[] = [
      writeNew(dir, INIT_FILES.gate, "the gate's settings", gateConfig(v, baseUrl)),
      writeNew(dir, INIT_FILES.probe, "the probe's settings", probeConfig(v, baseUrl)),
    ];
    if (runner.vendored) outcomes.push(packToolkit(dir, runner.vendored));
    if (ci === 'github')
      outcomes.push(writeNew(dir, INIT_FILES.github, 'the GitHub Actions job', githubWorkflow(v, runner)));
    if (ci === 'gitlab') outcomes.push(writeNew(dir, INIT_FILES.gitlab, 'the GitLab CI job', gitlabCi(v, runner)));
    report(outcomes, io, ci, runner);
    const failed = outcomes.filter((o) => o.status === 'failed');
    if (failed.length === 0) {
      nextSteps(io, { baseUrl, ci, runner, probeWritten: outcomes[1]?.status === 'wrote' });
      return EXIT.OK;
    }
    return EXIT.USAGE;
  },
};

function report(outcomes: Outcome[], io: Io, ci: string | undefined, runner: Runner): void {
  for (const o of outcomes) {
    if (o.status === 'wrote') io.out(`h2h init: wrote ${o.path} (${o.what})`);
    else if (o.status === 'exists') {
      io.out(
        `h2h init: left ${o.path} as it is: it exists, ${o.same === undefined ? 'and the job installs it' : o.same ? 'the same as h2h init writes' : 'and differs from what h2h init writes (yours is kept)'}`,
      );
      // A project's .gitlab-ci.yml holds its other jobs: the gate's job, to add to it.
      if (ci === 'gitlab' && o.path === INIT_FILES.gitlab && !o.same) {
        let text = '';
        try {
          text = readFileSync(join(process.cwd(), o.path), 'utf8');
        } catch {
          // Unreadable: the job is printed all the same.
        }
        if (!/^h2h-contract:/m.test(text))
          io.out(
            `h2h init: the job to add to ${o.path} (its stage, test, must be one of the file's stages):\n\n${gitlabJob(runner)}`,
          );
      }
    } else io.err(`h2h init: could not write ${o.path} (${o.what}): ${o.reason}`);
  }
}

function nextSteps(
  io: Io,
  opts: { baseUrl: string | undefined; ci: string | undefined; runner: Runner; probeWritten: boolean },
): void {
  const h2h = opts.runner.local;
  const lines = [
    '',
    'Next:',
    `  ${h2h} ${GATE_RUN}`,
    `      the gate against its embedded simulator, no key needed; then see ${SUMMARY_MD}`,
  ];
  if (!opts.baseUrl && opts.probeWritten)
    lines.push(`  edit ${INIT_FILES.probe}: targets[0].base_url is a placeholder for your API's base URL`);
  lines.push(
    `  set ${KEY_ENV} in the environment, from your secret store (not on a command line: shell history keeps it)`,
    `  ${h2h} ${GATE_RUN} --base-url ${opts.baseUrl ?? 'URL'}`,
    '      the gate against your API, read-only',
    `  ${h2h} probe --once --config ${INIT_FILES.probe}`,
    '      one round of the probe; without --once it stays up and serves /metrics',
  );
  const vendored = opts.runner.vendored;
  if (vendored)
    lines.push(
      `  the CI job installs h2h-contract from ${vendored} (the npm registry has none yet): commit it with the job`,
      '      (another version: npm pack it in a checkout of h2h-contract, put it in vendor/ and name it in the job)',
    );
  const commit = [INIT_FILES.gate, ...(vendored ? [vendored] : [])].join(', ');
  if (opts.ci === 'github')
    lines.push(
      `  add the repository secrets H2H_BASE_URL and ${KEY_ENV}, then commit ${commit} and ${INIT_FILES.github}`,
    );
  if (opts.ci === 'gitlab')
    lines.push(
      `  add the CI/CD variables H2H_BASE_URL and ${KEY_ENV} (masked), then commit ${commit} and ${INIT_FILES.gitlab}`,
    );
  io.out(lines.join('\n'));
}

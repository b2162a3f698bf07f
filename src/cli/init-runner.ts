// How CI and the next steps run h2h (the project's own copy, or one the job installs), and the toolkit packed into
// the project for the job when nothing else names one.
import { spawnSync } from 'node:child_process';
import { constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { shellWord } from '../shared/shell.js';
import type { Outcome } from './init-files.js';

/**
 * How CI and the next steps run h2h: the project's own copy after `npm ci` when its package.json and lockfile name
 * h2h-contract (from a tarball in the repository, a git URL or the registry: whatever npm install was given), else
 * the job installs it first from `--package SPEC` (a tarball, a git URL), by default from the toolkit that runs
 * h2h init, packed into the repository (`vendored`): the npm registry has no h2h-contract yet.
 */
export interface Runner {
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

export function runnerFor(dir: string, version: string, given: string | undefined, ci: boolean): Runner {
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
export function packToolkit(dir: string, path: string): Outcome {
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

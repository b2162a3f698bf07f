import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers.ts';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd: string, args: string[], cwd: string, timeout = 180_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, FORCE_COLOR: '0' } });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

describe('the package: npm pack, installed in an empty folder', () => {
  it('runs `npx h2h contract` and `npx h2h probe --once` there, JavaScript only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'h2h-pack-'));
    // dist/ is built before the tests (npm test), as `prepare` builds it for a user's npm pack: not built again here,
    // in the middle of a run whose other tests use it.
    const packed = run(npm, ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], ROOT);
    assert.equal(packed.code, 0, packed.out);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, `a tarball in ${dir}`);
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true}\n');
    const installed = run(
      npm,
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, tarball)],
      app,
    );
    assert.equal(installed.code, 0, installed.out);
    // No transpiler at run time: tsx is a development dependency only.
    assert.equal(existsSync(join(app, 'node_modules', 'tsx')), false, 'tsx is not installed with the package');

    const probe = run('npx', ['--no-install', 'h2h', 'probe', '--once'], app, 60_000);
    assert.equal(probe.code, 0, probe.out);
    assert.match(probe.out, /every probe succeeded/);

    // A gate run of the installed copy: Playwright, its suites and the embedded simulator found where npm put them
    // (the whole plan from an installed copy runs in init.test.ts, as the CI job h2h init writes).
    const contract = run('npx', ['--no-install', 'h2h', 'contract', '--grep', '^(INV-1|BAL-1) '], app, 120_000);
    assert.equal(contract.code, 0, contract.out);
    assert.match(contract.out, /^# H2H contract: holds$/m);
    assert.ok(existsSync(join(app, 'reports', 'contract-summary.json')), 'the reports are written in the folder');
  });

  it('`npm publish --dry-run` passes: MIT, not private, the files an installed copy needs and no test or scratch file', () => {
    // npm 11 reads the registry even on a dry run (does the version exist?): an unreachable loopback registry, no
    // retry, so that nothing leaves the machine. Scripts are skipped: dist/ is the build the other tests run.
    const r = spawnSync(
      npm,
      ['publish', '--dry-run', '--json', '--ignore-scripts', '--registry', 'http://127.0.0.1:9/', '--fetch-retries=0'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, FORCE_COLOR: '0' } },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(r.stdout) as Record<string, { files: { path: string }[] }>;
    const files = (report['h2h-contract']?.files ?? []).map((f) => f.path);
    for (const needed of ['LICENSE', 'dist/src/cli/main.js', 'openapi.yaml', 'package.json', 'README.md'])
      assert.ok(files.includes(needed), `${needed} is published`);
    // npm test compiles the tests, benchmarks and scripts into dist/ beside the CLI: none of them is published.
    const shipped = (f: string): boolean => /^dist\/(src|suites)\//.test(f);
    const stray = files.filter(
      (f) =>
        f.endsWith('.ts') ||
        (!shipped(f) && /^(dist\/)?(test|bench|scripts|\.scratch|\.ci|reports|src|suites)\//.test(f)),
    );
    assert.deepEqual(stray, [], 'no test, scratch, bench, script, report or TypeScript source file');
    const warnings = r.stderr.split('\n').filter((l) => /^npm warn/i.test(l));
    assert.deepEqual(
      warnings.filter((l) => /private|licen[cs]e|auto-corrected|invalid|files|bin/i.test(l)),
      [],
      'no warning about the package itself',
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license?: string; private?: boolean };
    assert.equal(pkg.license, 'MIT');
    assert.equal(pkg.private, undefined);
    assert.match(
      readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'),
      /^ {4}identifier: MIT$/m,
      'the license openapi.yaml declares',
    );
    assert.match(
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
      /^MIT License\n\nCopyright \(c\) 2026 the h2h-contract authors\n/,
    );
  });
});

// Node versions as one number each (prereleases aside), and a range of them as half-open intervals [lo, hi): what
// npm's engines check reads, for the forms package-lock.json holds (>=, >, <=, <, =, ^, ~, x-ranges, ||).
type Interval = [number, number];
const at = (major: number, minor = 0, patch = 0): number => (major * 1000 + minor) * 1000 + patch;

function comparator(token: string): Interval {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+|[xX*])?(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(token);
  if (!m) throw new Error(`engines: cannot read '${token}'`);
  const op = m[1] ?? '=';
  const parts = [m[2], m[3], m[4]].filter((p) => p !== undefined && /^\d+$/.test(p)).map(Number);
  const [M = 0, n = 0, p = 0] = parts;
  const lo = at(M, n, p);
  // The first version past the one written (1.2 -> 1.3.0, 1.2.3 -> 1.2.4).
  const past =
    parts.length === 3 ? lo + 1 : parts.length === 2 ? at(M, n + 1) : parts.length === 1 ? at(M + 1) : Infinity;
  switch (op) {
    case '>=':
      return [lo, Infinity];
    case '>':
      return [past, Infinity];
    case '<':
      return [0, lo];
    case '<=':
      return [0, past];
    case '~':
      return [lo, parts.length >= 2 ? at(M, n + 1) : past];
    case '^':
      return [lo, M > 0 || parts.length === 1 ? at(M + 1) : n > 0 || parts.length === 2 ? at(0, n + 1) : past];
    default:
      return parts.length === 0 ? [0, Infinity] : [lo, past];
  }
}

/** A range as intervals: each `||` part the intersection of its comparators. */
function intervals(range: string): Interval[] {
  return range.split('||').map((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .map(comparator)
      .reduce<Interval>(([lo, hi], [l, h]) => [Math.max(lo, l), Math.min(hi, h)], [0, Infinity]),
  );
}

/** Whether every version `inner` admits, `outer` admits too. */
function within(inner: string, outer: string): boolean {
  const merged: Interval[] = [];
  for (const [lo, hi] of intervals(outer).sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return intervals(inner)
    .filter(([lo, hi]) => lo < hi)
    .every(([lo, hi]) => merged.some(([l, h]) => l <= lo && hi <= h));
}

/**
 * The Node README.md names for developing (npm ci, npm test): every package of the lock, development ones
 * included, accepts it, so that npm ci there prints no EBADENGINE warning. The oldest Node a development package
 * asks for: @stoplight/prism-cli 5.16 (>=24.18.0).
 */
const DEVELOPMENT_NODE = '^24.18.0';

describe("the package's engines", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
  };
  const nodeRange = (p: { engines?: { node?: string } | string[] }): string | undefined =>
    Array.isArray(p.engines) ? undefined : p.engines?.node;

  it('reads ranges as npm does', () => {
    assert.ok(within('^20.19.0 || >=22.12.0', '>=22.12.0 || >=20.19.0 <21.0.0'));
    assert.ok(!within('>=20.10', '>=22.12.0 || >=20.19.0 <21.0.0'), '20.10 to 20.18, and 21, are not admitted');
    assert.ok(within('^24.18.0', '^22.18.0 || >=24.11.0'));
    assert.ok(!within('^22.12.0', '>=24.18.0'));
    assert.ok(within('^20.19.0 || >=22.12.0', '^16 || ^18 || >=20'));
    assert.ok(within('^20.19.0 || >=22.12.0', '>= 14.6'));
    assert.ok(!within('>=20', '^20 || ^22'));
    assert.ok(within('~20.19.1', '>20.19.0 <=20.19'));
  });

  it('every runtime dependency accepts every Node the package admits (package.json engines)', () => {
    assert.equal(lock.packages['']?.engines && nodeRange(lock.packages['']), pkg.engines.node, 'the lock is current');
    const refused = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.dev)
      .flatMap(([path, p]) => {
        const range = nodeRange(p);
        return range && !within(pkg.engines.node, range) ? [`${path}@${p.version}: ${range}`] : [];
      });
    assert.deepEqual(refused, [], `engines ${pkg.engines.node}`);
  });

  it(`every package of the lock, development ones included, accepts the development Node (${DEVELOPMENT_NODE})`, () => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, p]) => {
        const range = nodeRange(p);
        return range && !within(DEVELOPMENT_NODE, range) ? [`${path}@${p.version}: ${range}`] : [];
      });
    assert.deepEqual(refused, []);
  });
});

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { BIN, freePort, ROOT, samples, stopChild } from './helpers.ts';

// monitoring/systemd/h2h-probe.service, checked three ways: systemd-analyze verify and security (offline: no
// systemd runs as PID 1 on these machines, so the unit is never started by systemd here), and its ExecStart run
// as systemd would run it (%d expanded to a credentials folder holding the key, the unit's Environment=).

const UNIT = join(ROOT, 'monitoring', 'systemd', 'h2h-probe.service');
const INSTALLED_NODE = '/usr/bin/node';
const INSTALLED_CLI = '/opt/h2h-contract/dist/src/cli/main.js';
const KEY = 'sd-key-DISTINCT-41b7e2c9';

/** Every `Key=value` of the unit, in order (comments and sections left out). */
function directives(text: string): [string, string][] {
  return text
    .split('\n')
    .filter((l) => /^[A-Za-z]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]);
}
const unitText = readFileSync(UNIT, 'utf8');
const unit = directives(unitText);
const all = (key: string): string[] => unit.filter(([k]) => k === key).map(([, v]) => v);
const one = (key: string): string => {
  const v = all(key);
  assert.equal(v.length, 1, `one ${key}= in the unit`);
  return v[0] ?? '';
};

/**
 * A copy of the unit that can be verified and run from this checkout: ExecStart's node is this test's own and
 * the CLI is this checkout's dist/ (systemd-analyze verify refuses an ExecStart binary that does not exist).
 */
function localCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-systemd-'));
  const path = join(dir, 'h2h-probe.service');
  writeFileSync(
    path,
    unitText.replace(`ExecStart=${INSTALLED_NODE} ${INSTALLED_CLI} `, `ExecStart=${process.execPath} ${BIN} `),
  );
  return path;
}

function analyzeMissing(): string | undefined {
  const r = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  return r.error ? `systemd-analyze is not installed (${r.error.message}): apt-get install -y systemd` : undefined;
}

describe('the systemd unit monitoring/systemd/h2h-probe.service', () => {
  const copies: string[] = [];
  after(() => {
    for (const c of copies) rmSync(join(c, '..'), { recursive: true, force: true });
  });

  it('passes systemd-analyze verify without a warning (a copy whose ExecStart is this node and dist/)', (t) => {
    const missing = analyzeMissing();
    if (missing) return t.skip(missing);
    const copy = localCopy();
    copies.push(copy);
    assert.notEqual(readFileSync(copy, 'utf8'), unitText, 'the copy points ExecStart at this checkout');
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', copy], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    // An unknown key or a bad value is only a warning, with exit 0: none may show.
    assert.equal(`${r.stdout}${r.stderr}`.trim(), '');
  });

  it('is hardened: systemd-analyze security --offline rates its exposure 2.0 or lower (of 10)', (t) => {
    const missing = analyzeMissing();
    if (missing) return t.skip(missing);
    const copy = localCopy();
    copies.push(copy);
    // --threshold counts tenths: exit 1 when the exposure is above 2.0.
    const r = spawnSync('systemd-analyze', ['security', '--offline=yes', '--threshold=20', '--no-pager', copy], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const level = /Overall exposure level for h2h-probe\.service: ([\d.]+)/.exec(r.stdout)?.[1];
    t.diagnostic(`exposure ${level}`);
    assert.equal(
      r.status,
      0,
      `exposure ${level}:\n${r.stdout
        .split('\n')
        .filter((l) => l.includes('✗'))
        .join('\n')}`,
    );
    for (const d of ['DynamicUser=yes', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'Restart=on-failure'])
      assert.ok(unitText.includes(`\n${d}\n`), d);
  });

  it('keeps the key out of the unit: LoadCredential= gives the probe a file in %d, read with --api-key-file', () => {
    const [name, source] = one('LoadCredential').split(':');
    assert.ok(name && source?.startsWith('/'), 'LoadCredential=NAME:/absolute/path');
    const argv = one('ExecStart').split(/\s+/);
    assert.equal(argv[argv.indexOf('--api-key-file') + 1], `%d/${name}`);
    assert.equal(argv.includes('--api-key'), false, 'no key on the command line');
    assert.equal(
      all('Environment').some((e) => /^H2H_API_KEY=/.test(e)),
      false,
      'no key in the environment',
    );
  });

  describe('its ExecStart, run as systemd runs it', () => {
    let sim: Simulator;
    let creds: string;
    before(async () => {
      sim = await startSimulator({ apiKey: KEY });
      creds = mkdtempSync(join(tmpdir(), 'h2h-credentials-'));
    });
    after(async () => {
      await sim.close();
      rmSync(creds, { recursive: true, force: true });
    });

    it('probes the target with the key from the credentials folder, then ends with 0 on SIGTERM', async () => {
      const [name] = one('LoadCredential').split(':');
      writeFileSync(join(creds, name ?? ''), `${KEY}\n`, { mode: 0o400 });
      const exec = one('ExecStart');
      assert.doesNotMatch(exec, /["'$\\]/, 'no quoting or variables: split on spaces as systemd would');
      const argv = exec.split(/\s+/).map((w) => w.replaceAll('%d', creds));
      assert.deepEqual(argv.slice(0, 3), [INSTALLED_NODE, INSTALLED_CLI, 'probe']);
      const listen = argv.indexOf('--listen') + 1;
      assert.match(argv[listen] ?? '', /^127\.0\.0\.1:\d+$/, 'it listens on loopback');
      const port = await freePort();
      argv[listen] = `127.0.0.1:${port}`;
      // systemd's environment: the unit's Environment= alone, no shell's. The target is the simulator, probed every
      // second (a drop-in would set these the same way).
      const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', CREDENTIALS_DIRECTORY: creds };
      for (const e of all('Environment')) env[e.slice(0, e.indexOf('='))] = e.slice(e.indexOf('=') + 1);
      assert.ok(env.H2H_BASE_URL, 'the unit names its target');
      Object.assign(env, { H2H_BASE_URL: sim.url, H2H_SCHEDULE: '* * * * * *', H2H_TIMEOUT: '800ms' });

      const child = spawn(process.execPath, [BIN, ...argv.slice(2)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      try {
        const want = READ_ONLY_ENDPOINTS.map((e) => `h2h_probe_success{target="${env.H2H_NAME}",endpoint="${e}"}`);
        const deadline = Date.now() + 20_000;
        for (;;) {
          const got = await fetch(`http://127.0.0.1:${port}/metrics`)
            .then(async (r) => samples(await r.text()))
            .catch(() => new Map<string, number>());
          if (want.every((s) => got.get(s) === 1)) break;
          assert.ok(child.exitCode === null, `the probe exited ${child.exitCode}:\n${out}`);
          assert.ok(Date.now() < deadline, `no success in 20 s:\n${out}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        const stopSec = Number.parseInt(one('TimeoutStopSec'), 10);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise((r) => {
          timer = setTimeout(r, stopSec * 1000, 'still running');
        });
        const code = await Promise.race([exited, late]);
        clearTimeout(timer);
        assert.equal(code, 0, `exit on SIGTERM within TimeoutStopSec=${stopSec}s:\n${out}`);
        assert.equal(out.includes(KEY), false, 'the key is not in its output');
      } finally {
        await stopChild(child);
      }
    });
  });
});

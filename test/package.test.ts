import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
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
    const packed = run(npm, ['pack', '--pack-destination', dir, '--silent'], ROOT);
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

    const contract = run('npx', ['--no-install', 'h2h', 'contract'], app, 120_000);
    assert.equal(contract.code, 0, contract.out);
    assert.ok(existsSync(join(app, 'reports', 'contract-summary.json')), 'the reports are written in the folder');
  });
});

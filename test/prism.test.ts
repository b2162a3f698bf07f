import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContractSummary } from '../src/report/summary.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { freePort, ROOT, runCli, stopChild } from './helpers.ts';

// An independent cross-check: Stoplight Prism's validation proxy (`prism proxy openapi.yaml <simulator> --errors`)
// between the read-only contract suite and the simulator. Prism validates every request and response against
// openapi.yaml; with --errors it answers a violation with 500 and an `sl-violations` header instead of the
// upstream answer, which the suite would then fail on.
//
// Which requests go through it: `h2h contract --canonical-only`, the scenarios whose requests plain OpenAPI can
// call valid — canonical parameter names with valid values, on both methods. Left out, because OpenAPI cannot
// express them: every alias (ENV-3 and the alias variants of the other clauses), AUTH-1 with a missing or empty
// key, INV-3 (bad msisdn) and INV-4 (missing parameters, bad kind). Read-only: no invite can succeed.

const PRISM = join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

describe('Prism validation proxy between the suite and the simulator', () => {
  let sim: Simulator;
  let prism: ChildProcess;
  let prismUrl = '';
  let log = '';

  before(async () => {
    sim = await startSimulator();
    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(
      process.execPath,
      [PRISM, 'proxy', join(ROOT, 'openapi.yaml'), sim.url, '--errors', '--host', '127.0.0.1', '--port', String(port)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start in 60 s:\n${log.slice(-2000)}`)), 60_000);
      const onData = (d: Buffer): void => {
        log += d.toString();
        if (log.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism.stdout?.on('data', onData);
      prism.stderr?.on('data', onData);
      prism.on('exit', (code) => reject(new Error(`Prism exited ${code}:\n${log.slice(-2000)}`)));
    });
  });

  after(async () => {
    await stopChild(prism);
    await sim?.close();
  });

  it('the read-only suite through Prism passes, and Prism reports no violation', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'h2h-prism-'));
    const start = log.length;
    const r = await runCli(
      // Two workers: the target is on this machine, and two more Playwright workers would only cost their start.
      [
        'contract',
        '--base-url',
        prismUrl,
        '--api-key',
        sim.apiKey,
        '--canonical-only',
        '--concurrency',
        '2',
        '--reports-dir',
        reports,
      ],
      { timeoutMs: 180_000 },
    );
    assert.equal(r.code, 0, (r.stdout + r.stderr).slice(-3000));
    const summary = JSON.parse(readFileSync(join(reports, 'contract-summary.json'), 'utf8')) as ContractSummary;
    assert.equal(summary.totals.failed, 0);
    const passed: string[] = summary.clauses.filter((c) => c.status === 'held').map((c) => c.id);
    for (const id of [
      'ENV-1',
      'ENV-2',
      'ENV-4',
      'AUTH-1',
      'BAL-1',
      'HIS-1',
      'HIS-2',
      'HIS-3',
      'HIS-4',
      'HIS-5',
      'TRX-1',
      'TRX-2',
    ]) {
      assert.ok(passed.includes(id), `${id} went through Prism and passed (${summary.totals.passed} scenarios in all)`);
    }
    const through = log.slice(start);
    const forwarded = (through.match(/Forwarding "(get|post)" request/g) ?? []).length;
    assert.ok(forwarded >= 50, `${forwarded} requests went through Prism`);
    assert.equal(
      forwarded,
      sim.log.filter((e) => e.endpoint).length,
      'every request the simulator saw came through Prism',
    );
    assert.ok(!/VIOLATIONS|not valid|sl-violations/i.test(through), 'Prism found no violation');
    for (const endpoint of ['saldo-user', 'history-transaksi', 'cek-trx-id', 'invite-member']) {
      assert.ok(
        sim.log.some((e) => e.endpoint === endpoint && e.method === 'GET') &&
          sim.log.some((e) => e.endpoint === endpoint && e.method === 'POST'),
        `${endpoint} on both methods`,
      );
    }
  });

  it('a deliberately broken simulator answer is reported by Prism', async () => {
    sim.setFault({ name: 'saldo-as-string' });
    try {
      const res = await fetch(`${prismUrl}/api/saldo-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: sim.apiKey }),
      });
      assert.equal(res.status, 500);
      const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]') as {
        location: string[];
        message: string;
      }[];
      assert.ok(
        violations.some((v) => v.location.join('.') === 'response.body.saldo' && /must be number/.test(v.message)),
        JSON.stringify(violations),
      );
    } finally {
      sim.setFault(null);
    }
  });
});

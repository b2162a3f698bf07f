import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { freePort, ROOT, type Running, startProbe, stopChild } from './helpers.ts';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('end to end: simulator, probe and a real Prometheus', () => {
  let sim: Simulator;
  let probe: Running;
  let prom: ChildProcess;
  let promUrl = '';
  let promLog = '';

  before(async () => {
    assert.equal(
      spawnSync('prometheus', ['--version']).status,
      0,
      'Debian prometheus is installed (.ci/run installs it)',
    );
    sim = await startSimulator();
    probe = await startProbe(sim, ['--name', 'sim']);
    const dir = mkdtempSync(join(tmpdir(), 'h2h-prom-'));
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global: {scrape_interval: 1s, evaluation_interval: 1s}',
        `rule_files: ['${join(ROOT, 'monitoring', 'alerts.yml')}']`,
        'scrape_configs:',
        '  - job_name: h2h-probe',
        `    static_configs: [{targets: ['${new URL(probe.url).host}']}]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prom.stderr?.on('data', (d: Buffer) => {
      promLog += d.toString();
    });
    await until(
      'Prometheus is ready',
      async () => (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.status === 200,
      30_000,
    );
  });

  after(async () => {
    await stopChild(prom);
    await probe?.stop();
    await sim?.close();
  });

  async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await ok().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`${what}: not within ${ms} ms\n${promLog.slice(-2000)}`);
  }

  async function query(q: string): Promise<Sample[]> {
    const r = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
      status: string;
      data: { result: Sample[] };
    };
    assert.equal(r.status, 'success', q);
    return r.data.result;
  }

  async function alerts(): Promise<{ labels: Record<string, string>; state: string }[]> {
    const r = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as {
      data: { alerts: { labels: Record<string, string>; state: string }[] };
    };
    return r.data.alerts;
  }

  it('Prometheus scrapes h2h_probe_success = 1 for the three endpoints, and h2h_balance = the simulator balance', async () => {
    await until('three successes in Prometheus', async () => {
      const r = await query('h2h_probe_success{target="sim"}');
      return r.length === 3 && r.every((s) => s.value[1] === '1');
    });
    const endpoints = (await query('h2h_probe_success')).map((s) => s.metric.endpoint).sort();
    assert.deepEqual(endpoints, [...READ_ONLY_ENDPOINTS].sort());
    const [balance] = await query('h2h_balance{target="sim"}');
    assert.equal(Number(balance?.value[1]), sim.state.saldo(sim.fixture.suite.account));
  });

  it('a fault drops success to 0 with the right reason, and the matching alerts go pending', async () => {
    sim.setFault({ name: 'saldo-as-string' });
    await until(
      'saldo-user fails in Prometheus',
      async () => (await query('h2h_probe_success{endpoint="saldo-user"}'))[0]?.value[1] === '0',
    );
    await until(
      'the failures carry reason schema',
      async () =>
        (await query('increase(h2h_probe_failures_total{endpoint="saldo-user",reason="schema"}[1m]) > 0')).length === 1,
    );
    assert.equal(
      (await query('increase(h2h_probe_contract_violations_total{endpoint="saldo-user",clause="BAL-1"}[1m]) > 0'))
        .length,
      1,
    );
    const others = await query('h2h_probe_success{endpoint!="saldo-user"}');
    assert.ok(
      others.every((s) => s.value[1] === '1'),
      'the other endpoints stay up',
    );
    await until('H2HProbeFailing and H2HContractViolated pending for saldo-user', async () => {
      const a = await alerts();
      const failing = a.find((x) => x.labels.alertname === 'H2HProbeFailing' && x.labels.endpoint === 'saldo-user');
      const violated = a.find((x) => x.labels.alertname === 'H2HContractViolated' && x.labels.clause === 'BAL-1');
      return failing?.state === 'pending' && violated?.state === 'pending';
    });
  });

  it('turning the fault off, success comes back', async () => {
    sim.setFault(null);
    await until(
      'saldo-user recovers in Prometheus',
      async () => (await query('h2h_probe_success{endpoint="saldo-user"}'))[0]?.value[1] === '1',
    );
    await until(
      'H2HProbeFailing clears',
      async () => !(await alerts()).some((x) => x.labels.alertname === 'H2HProbeFailing'),
    );
  });
});

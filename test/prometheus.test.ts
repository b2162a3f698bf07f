import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { REFERENCE } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { ROOT, type Running, startProbe } from './helpers.ts';
import { type PrometheusServer, probeScrapeConfig, startPrometheus } from './prometheus-server.ts';

describe('end to end: simulator, probe and a real Prometheus', () => {
  let sim: Simulator;
  let probe: Running;
  let prom: PrometheusServer;
  const query = (q: string) => prom.query(q);
  const until = (what: string, ok: () => Promise<boolean>) => prom.until(what, ok);
  const alerts = () => prom.alerts();

  before(async () => {
    assert.equal(
      spawnSync('prometheus', ['--version']).status,
      0,
      'Debian prometheus is installed (.ci/run installs it)',
    );
    sim = await startSimulator();
    probe = await startProbe(sim, ['--name', 'sim']);
    prom = await startPrometheus(probeScrapeConfig(join(ROOT, 'monitoring', 'alerts.yml'), new URL(probe.url).host));
  });

  after(async () => {
    await prom?.stop();
    await probe?.stop();
    await sim?.close();
  });

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

describe("end to end: the provider's reading drifts, the probe's info metric and its alert follow", () => {
  let sim: Simulator | undefined;
  let probe: Running;
  let prom: PrometheusServer;
  const contentTypes = async () =>
    (await prom.query('h2h_provider_reading_info{target="provider",point="content-type"}')).map((s) => s.metric.value);

  before(async () => {
    // One target, served first by a simulator with the reference reading, then on the same port by a second one
    // that differs in one observable knob: the Content-Type of its answers (charset -> plain).
    sim = await startSimulator();
    probe = await startProbe(sim, ['--name', 'provider']);
    prom = await startPrometheus(probeScrapeConfig(join(ROOT, 'monitoring', 'alerts.yml'), new URL(probe.url).host));
  });

  after(async () => {
    await prom?.stop();
    await probe?.stop();
    await sim?.close();
  });

  it('shows every point the read-only answers reveal, each with one value; no alert while it holds', async () => {
    await prom.until('the reading in Prometheus', async () => (await contentTypes()).join() === 'charset');
    const points = await prom.query('h2h_provider_reading_info{target="provider"}');
    const byPoint = Object.fromEntries(points.map((s) => [s.metric.point, s.metric.value]));
    assert.deepEqual(byPoint, {
      'content-type': 'charset',
      'content-coding': 'none',
      extra: 'none',
      message: 'absent',
      saldo: 'small',
      'manager-form': '62',
      'member-form': '62',
      order: 'newest',
    });
    assert.ok(!(await prom.alerts()).some((a) => a.labels.alertname === 'H2HProviderReadingChanged'));
  });

  it('a second simulator with another content type: the metric follows, the alert names that point alone', async () => {
    const port = Number(new URL((sim as Simulator).url).port);
    await sim?.close();
    sim = undefined;
    sim = await startSimulator({ port, reading: { ...REFERENCE, 'content-type': 'plain' } });
    await prom.until(
      'content-type plain, the charset series gone',
      async () => (await contentTypes()).join() === 'plain',
    );
    await prom.until('H2HProviderReadingChanged fires for content-type', async () =>
      (await prom.alerts()).some(
        (a) => a.labels.alertname === 'H2HProviderReadingChanged' && a.labels.point === 'content-type',
      ),
    );
    const changed = (await prom.alerts()).filter((a) => a.labels.alertname === 'H2HProviderReadingChanged');
    assert.deepEqual(
      changed.map((a) => [a.labels.target, a.labels.point, a.state]),
      [['provider', 'content-type', 'firing']],
      'the one changed point, no other',
    );
  });
});

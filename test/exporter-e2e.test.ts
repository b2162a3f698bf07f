import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { ROOT, type Running, startCli } from './helpers.ts';
import { type PrometheusServer, startPrometheus } from './prometheus-server.ts';

interface ScrapeJob {
  job_name: string;
  scrape_interval?: string;
  scrape_timeout?: string;
  static_configs: { targets: string[] }[];
  relabel_configs?: { target_label?: string; replacement?: string }[];
}

/** Prometheus' hashmod: the last 8 bytes of the MD5 of the label value, big-endian, modulo the shard count. */
function shardOf(name: string, shards: number): number {
  return Number(createHash('md5').update(name).digest().readBigUInt64BE(8) % BigInt(shards));
}

describe('end to end: two probe replicas in exporter mode, sharded by a real Prometheus (monitoring/prometheus-sharded.yml)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-shards-'));
  const sims = new Map<string, Simulator>();
  const replicas: Running[] = [];
  let names: string[] = [];
  let prom: PrometheusServer;

  before(async () => {
    assert.equal(spawnSync('prometheus', ['--version']).status, 0, 'Debian prometheus is installed (.ci/run)');
    // The shipped sharded config, with this test's addresses and a 1 s interval.
    const shipped = YAML.parse(readFileSync(join(ROOT, 'monitoring', 'prometheus-sharded.yml'), 'utf8')) as {
      global: Record<string, string>;
      rule_files: string[];
      scrape_configs: ScrapeJob[];
    };
    const shardJobs = shipped.scrape_configs.filter((j) => j.job_name.startsWith('h2h-probe-shard-'));
    assert.equal(shardJobs.length, 2);
    names = shardJobs[0]?.static_configs[0]?.targets ?? [];
    assert.ok(names.length >= 4, 'several targets');
    const byShard = [0, 1].map((s) => names.filter((n) => shardOf(n, 2) === s));
    assert.ok(
      byShard.every((s) => s.length > 0),
      `both shards have targets: ${JSON.stringify(byShard)}`,
    );

    const env: NodeJS.ProcessEnv = {};
    const lines = ['schedule: none', 'timeout: 2s', 'targets:'];
    for (const [i, name] of names.entries()) {
      const sim = await startSimulator({ apiKey: `e2e-shard-key-${i}-${name}` });
      sims.set(name, sim);
      env[`KEY_${i}`] = sim.apiKey;
      lines.push(`  - {name: ${name}, base_url: '${sim.url}', api_key_env: KEY_${i}, trx_id: TRX-20261102-0021}`);
    }
    const probeYaml = join(dir, 'probe.yaml');
    writeFileSync(probeYaml, `${lines.join('\n')}\n`);
    for (let r = 0; r < 2; r++)
      replicas.push(
        await startCli(
          ['probe', '--exporter', '--config', probeYaml, '--listen', '127.0.0.1:0'],
          /^H2H_PROBE_URL=(\S+)$/m,
          env,
        ),
      );

    const hosts = replicas.map((r) => new URL(r.url).host);
    shipped.global = { scrape_interval: '1s', evaluation_interval: '1s' };
    shipped.rule_files = [join(ROOT, 'monitoring', 'alerts.yml')];
    for (const job of shipped.scrape_configs) {
      job.scrape_interval = '1s';
      job.scrape_timeout = '1s';
      const shard = /shard-(\d)$/.exec(job.job_name)?.[1];
      if (shard === undefined) job.static_configs = [{ targets: hosts }];
      else
        for (const rule of job.relabel_configs ?? [])
          if (rule.target_label === '__address__') rule.replacement = hosts[Number(shard)];
    }
    prom = await startPrometheus(YAML.stringify(shipped, { aliasDuplicateObjects: false }));
  });

  after(async () => {
    await prom?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await Promise.all([...sims.values()].map((s) => s.close()));
  });

  const until = (what: string, ok: () => Promise<boolean>) => prom.until(what, ok);
  const query = (q: string) => prom.query(q);

  it('every target is probed, each by exactly one shard: the one its hashmod names', async () => {
    await until('every target checked on its three endpoints', async () => {
      const r = await query('h2h_probe_success == 1');
      return names.every((n) => r.filter((s) => s.metric.target === n).length === READ_ONLY_ENDPOINTS.length);
    });
    const up = await query('up{job=~"h2h-probe-shard-.*"}');
    for (const name of names) {
      const jobs = up.filter((s) => s.metric.instance === name);
      assert.equal(jobs.length, 1, `${name} is scraped by exactly one shard: ${JSON.stringify(jobs)}`);
      assert.equal(jobs[0]?.metric.job, `h2h-probe-shard-${shardOf(name, 2)}`, name);
      assert.equal(jobs[0]?.value[1], '1');
      const success = await query(`h2h_probe_success{target="${name}"}`);
      assert.deepEqual(
        [...new Set(success.map((s) => s.metric.job))],
        [`h2h-probe-shard-${shardOf(name, 2)}`],
        `${name}'s results come from its shard alone`,
      );
      const [balance] = await query(`h2h_balance{target="${name}"}`);
      const sim = sims.get(name);
      assert.equal(Number(balance?.value[1]), sim?.state.saldo(sim.fixture.suite.account));
    }
    // Each replica checked only its own shard's targets.
    for (const [i, replica] of replicas.entries()) {
      const status = (await (await fetch(`${replica.url}/status`)).json()) as { targets: Record<string, unknown> };
      assert.deepEqual(
        Object.keys(status.targets).sort(),
        names.filter((n) => shardOf(n, 2) === i).sort(),
        `replica ${i} checked its shard only`,
      );
    }
    // The replicas' own /metrics: process metrics and their /probe counters, no target series.
    // Their self-scrape runs on its own clock: wait until it has seen both count.
    await until(
      'both replicas count the rounds they answered',
      async () => (await query('h2h_probe_exporter_requests_total{job="h2h-probe",outcome="probed"} > 0')).length === 2,
    );
    assert.equal((await query('h2h_probe_success{job="h2h-probe"}')).length, 0);
  });

  it('a replica stopped: its targets turn to up == 0 and H2HProbeDown goes pending for each; the other shard stays up', async () => {
    const stopped = names.filter((n) => shardOf(n, 2) === 1);
    const running = names.filter((n) => shardOf(n, 2) === 0);
    await replicas[1]?.stop();
    await until('the stopped shard is down in Prometheus', async () => {
      const down = await query('up{job="h2h-probe-shard-1"} == 0');
      return stopped.every((n) => down.some((s) => s.metric.instance === n));
    });
    await until('H2HProbeDown pending for each target of the stopped shard', async () => {
      const down = (await prom.alerts()).filter((a) => a.labels.alertname === 'H2HProbeDown');
      return (
        stopped.every((n) => down.some((a) => a.labels.instance === n && a.labels.job === 'h2h-probe-shard-1')) &&
        !down.some((a) => running.includes(a.labels.instance ?? ''))
      );
    });
    const up = await query('up{job="h2h-probe-shard-0"} == 1');
    assert.deepEqual(up.map((s) => s.metric.instance).sort(), running.sort());
  });
});

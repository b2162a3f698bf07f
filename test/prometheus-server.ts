import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopChild } from './helpers.ts';

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Alert {
  labels: Record<string, string>;
  state: string;
}

/** Debian's real Prometheus on a free loopback port, with an instant-query and alerts client. */
export interface PrometheusServer {
  url: string;
  query(q: string): Promise<Sample[]>;
  alerts(): Promise<Alert[]>;
  /** Polls `ok` until it holds, or fails with Prometheus' last log lines. */
  until(what: string, ok: () => Promise<boolean>, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A scrape config for one h2h probe at `probeHost` (host:port), every second, with monitoring/alerts.yml. */
export function probeScrapeConfig(alertsFile: string, probeHost: string): string {
  return [
    'global: {scrape_interval: 1s, evaluation_interval: 1s}',
    `rule_files: ['${alertsFile}']`,
    'scrape_configs:',
    '  - job_name: h2h-probe',
    `    static_configs: [{targets: ['${probeHost}']}]`,
    '',
  ].join('\n');
}

export async function startPrometheus(configYaml: string): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-prom-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, configYaml);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const until = async (what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await ok().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`${what}: not within ${ms} ms\n${log.slice(-2000)}`);
  };
  const server: PrometheusServer = {
    url,
    until,
    async query(q) {
      const r = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
        status: string;
        data: { result: Sample[] };
      };
      assert.equal(r.status, 'success', q);
      return r.data.result;
    },
    async alerts() {
      const r = (await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
      return r.data.alerts;
    },
    stop: () => stopChild(child),
  };
  try {
    await until('Prometheus is ready', async () => (await fetch(`${url}/-/ready`)).status === 200);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

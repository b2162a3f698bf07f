// Capacity of one exporter-mode replica (`h2h probe --exporter`): how many targets it serves at a 30 s interval
// with scrape p99 under 1 s and under one core, against blackbox_exporter doing the equivalent HTTP probes
// (three per target: saldo-user, history-transaksi, cek-trx-id) in the same multi-target setup, same run.
// A load generator plays Prometheus: every target scraped once per interval, the targets spread evenly over it,
// with X-Prometheus-Scrape-Timeout-Seconds: 10. The API is `h2h mock` in its own process (50 ms per answer).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/shared/free-port.ts';
import { BIN, machineLine, procCpuMs, procRssMiB, startMock, waitFor } from './machine.ts';

const INTERVAL_S = Number(process.env.BENCH_INTERVAL_S ?? 30);
const STEPS = (process.env.BENCH_TARGETS ?? '150,300,600,900,1200,1800').split(',').map(Number);
const P99_LIMIT_MS = 1000;
const CORE_LIMIT = 1;
const TRX = 'TRX-20261102-0021';

interface Step {
  targets: number;
  /** Scrapes answered per second, as achieved. */
  rate: number;
  p50: number;
  p99: number;
  cores: number;
  failed: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

/** One interval of Prometheus-like scrapes: each URL once, spread evenly; the latency of each, and the CPU used. */
async function scrapeInterval(pid: number, urls: string[]): Promise<Omit<Step, 'targets'>> {
  const latencies: number[] = [];
  let failed = 0;
  const cpu0 = procCpuMs(pid);
  const t0 = performance.now();
  const spacing = (INTERVAL_S * 1000) / urls.length;
  await Promise.all(
    urls.map(
      (url, i) =>
        new Promise<void>((resolve) => {
          setTimeout(async () => {
            const start = performance.now();
            try {
              const res = await fetch(url, { headers: { 'X-Prometheus-Scrape-Timeout-Seconds': '10' } });
              const body = await res.text();
              if (res.status !== 200 || !/probe_success\S* 1$/m.test(body) || /probe_success\S* 0$/m.test(body))
                failed++;
            } catch {
              failed++;
            }
            latencies.push(performance.now() - start);
            resolve();
          }, i * spacing);
        }),
    ),
  );
  const wall = performance.now() - t0;
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cores: (procCpuMs(pid) - cpu0) / wall,
    rate: (urls.length * 1000) / wall,
    failed,
  };
}

const mock = await startMock(['--latency-ms', '50']);
const dir = mkdtempSync(join(tmpdir(), 'h2h-capacity-'));
const most = Math.max(...STEPS);
const names = Array.from({ length: most }, (_, i) => `t${String(i).padStart(5, '0')}`);
writeFileSync(
  join(dir, 'probe.yaml'),
  `schedule: none\ntimeout: 10s\ntargets:\n${names.map((n) => `  - {name: ${n}, base_url: '${mock.url}', api_key_env: K, trx_id: ${TRX}}`).join('\n')}\n`,
);
const h2hPort = await freePort();
const h2h = spawn(
  process.execPath,
  [BIN, 'probe', '--exporter', '--config', join(dir, 'probe.yaml'), '--listen', `127.0.0.1:${h2hPort}`],
  { stdio: 'ignore', env: { ...process.env, K: mock.key } },
);
const body = (extra: Record<string, unknown>) => JSON.stringify({ api_key: mock.key, ...extra });
const module = (name: string, extra: Record<string, unknown>) => `  ${name}:
    prober: http
    timeout: 10s
    http:
      method: POST
      headers: {Content-Type: application/json}
      body: '${body(extra)}'
      valid_status_codes: [200]
      fail_if_body_not_matches_regexp: ['"ok":true']
      preferred_ip_protocol: ip4
`;
writeFileSync(
  join(dir, 'blackbox.yml'),
  `modules:\n${module('saldo', {})}${module('history', { limit: 5 })}${module('lookup', { trx_id: TRX })}`,
);
const bbPort = await freePort();
const bb = spawn(
  'prometheus-blackbox-exporter',
  [`--config.file=${join(dir, 'blackbox.yml')}`, `--web.listen-address=127.0.0.1:${bbPort}`, '--log.level=error'],
  { stdio: 'ignore' },
);

try {
  const h2hUrl = `http://127.0.0.1:${h2hPort}`;
  const bbUrl = `http://127.0.0.1:${bbPort}`;
  await waitFor(`${h2hUrl}/healthz`);
  await waitFor(`${bbUrl}/-/healthy`);
  const paths = { saldo: 'saldo-user', history: 'history-transaksi', lookup: 'cek-trx-id' };
  console.log(`machine: ${machineLine()}`);
  console.log(`interval ${INTERVAL_S} s; limits: scrape p99 < ${P99_LIMIT_MS} ms, CPU < ${CORE_LIMIT} core\n`);
  console.log(
    `targets (= at 30 s) | h2h rounds/s | p50 / p99 ms | cores | failed | blackbox probes/s (3 per target) | p50 / p99 ms | cores | failed`,
  );
  const steps: { h2h: Step; bb: Step }[] = [];
  for (const targets of STEPS) {
    const h2hStep = {
      targets,
      ...(await scrapeInterval(
        h2h.pid ?? 0,
        names.slice(0, targets).map((n) => `${h2hUrl}/probe?target=${n}`),
      )),
    };
    const bbUrls = names
      .slice(0, targets)
      .flatMap(() =>
        Object.entries(paths).map(
          ([m, p]) => `${bbUrl}/probe?module=${m}&target=${encodeURIComponent(`${mock.url}/api/${p}`)}`,
        ),
      );
    const bbStep = { targets, ...(await scrapeInterval(bb.pid ?? 0, bbUrls)) };
    steps.push({ h2h: h2hStep, bb: bbStep });
    const row = (s: Step) =>
      `${s.rate.toFixed(0).padStart(5)} | ${s.p50.toFixed(0).padStart(4)} / ${s.p99.toFixed(0).padStart(5)} | ${s.cores.toFixed(2)} | ${s.failed}`;
    console.log(
      `${String(targets).padStart(6)} (${String(Math.round((targets * 30) / INTERVAL_S)).padStart(6)}) | ${row(h2hStep)} | ${row(bbStep)}`,
    );
    const over = (s: Step) => s.p99 >= P99_LIMIT_MS || s.cores >= CORE_LIMIT || s.failed > 0;
    if (over(h2hStep) && over(bbStep)) break;
  }
  // Targets at a 30 s interval: the same rounds per second as the step's targets at its own interval.
  const within = (pick: (s: { h2h: Step; bb: Step }) => Step) =>
    Math.max(
      0,
      ...steps
        .map(pick)
        .filter((s) => s.p99 < P99_LIMIT_MS && s.cores < CORE_LIMIT && s.failed === 0)
        .map((s) => Math.round((s.targets * 30) / INTERVAL_S)),
    );
  const h2hMax = within((s) => s.h2h);
  const bbMax = within((s) => s.bb);
  console.log(
    `\ncapacity at a 30 s interval (largest step within the limits): h2h ${h2hMax} targets, blackbox_exporter ${bbMax} targets (ratio ${(h2hMax / bbMax).toFixed(2)}x)`,
  );
  console.log(
    `replica RSS after the run: h2h ${procRssMiB(h2h.pid ?? 0).toFixed(0)} MiB, blackbox_exporter ${procRssMiB(bb.pid ?? 0).toFixed(0)} MiB`,
  );
} finally {
  h2h.kill();
  bb.kill();
  mock.child.kill();
}

// The probe's latency measurement against ground truth and against blackbox_exporter, and its CPU and memory
// per 1,000 probes beside blackbox_exporter's, in one run against the simulator with a fixed injected delay.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApiModel } from '../src/openapi/load.ts';
import { probeEndpoint } from '../src/probe/probe-endpoint.ts';
import { freePort } from '../src/shared/free-port.ts';
import type { LogEntry } from '../src/simulator/server.ts';
import { machineLine, median, procCpuMs, procRssMiB, startMock, waitFor } from './machine.ts';

const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const CPU_PROBES = 1000;
const CONCURRENCY = 10;
const mock = await startMock(['--latency-ms', String(DELAY_MS)]);
const bbPort = await freePort();
const dir = mkdtempSync(join(tmpdir(), 'h2h-bb-'));
writeFileSync(
  join(dir, 'blackbox.yml'),
  `modules:
  h2h_saldo:
    prober: http
    timeout: 5s
    http:
      method: POST
      headers: {Content-Type: application/json}
      body: '${JSON.stringify({ api_key: mock.key })}'
      valid_status_codes: [200]
      fail_if_body_not_matches_regexp: ['"ok":true']
      preferred_ip_protocol: ip4
`,
);
const bb = spawn(
  'prometheus-blackbox-exporter',
  [`--config.file=${join(dir, 'blackbox.yml')}`, `--web.listen-address=127.0.0.1:${bbPort}`, '--log.level=error'],
  { stdio: 'ignore' },
);
const bbUrl = `http://127.0.0.1:${bbPort}`;
const probeTarget = `${mock.url}/api/saldo-user`;

try {
  await waitFor(`${bbUrl}/-/healthy`);
  const api = loadApiModel();
  const target = { name: 'bench', baseUrl: mock.url, apiKey: mock.key };
  const opts = { method: 'POST' as const, timeoutMs: 5000, bodyCap: 1024 * 1024, historyLimit: 5 };
  const serverLog = async (): Promise<LogEntry[]> =>
    (await (await fetch(`${mock.url}/__sim/log`)).json()) as LogEntry[];
  const bbOnce = async (): Promise<number> => {
    const text = await (
      await fetch(`${bbUrl}/probe?module=h2h_saldo&target=${encodeURIComponent(probeTarget)}`)
    ).text();
    if (!/^probe_success 1$/m.test(text)) throw new Error(`blackbox probe failed:\n${text}`);
    let sum = 0;
    for (const m of text.matchAll(/^probe_http_duration_seconds\{phase="\w+"\} (\S+)$/gm)) sum += Number(m[1]);
    return sum * 1000;
  };

  // Warm-up, then latency: each measurement paired with the server's own timing of that request.
  for (let i = 0; i < 20; i++) {
    await probeEndpoint(api, target, 'saldo-user', opts);
    await bbOnce();
  }
  const h2hOnce = async (): Promise<number> => {
    const r = await probeEndpoint(api, target, 'saldo-user', opts);
    if (!r.success) throw new Error(`probe failed: ${r.reason} ${r.message}`);
    return r.totalMs;
  };
  /**
   * `inFlight` probes of one tool at once, SAMPLES in all. Each measurement is set against the server-side
   * truth: its own request's when alone, the median of its round's requests when several are in flight (the
   * server cannot tell which of them is which).
   */
  const errors = async (
    once: () => Promise<number>,
    inFlight: number,
  ): Promise<{ measured: number[]; error: number[]; truth: number[] }> => {
    const measured: number[] = [];
    const error: number[] = [];
    const truth: number[] = [];
    for (let round = 0; round < SAMPLES / inFlight; round++) {
      const before = (await serverLog()).length;
      const ms = await Promise.all(Array.from({ length: inFlight }, once));
      const t = (await serverLog())
        .slice(before)
        .filter((e) => e.endpoint === 'saldo-user')
        .map((e) => e.durationMs ?? Number.NaN);
      if (t.length !== inFlight) throw new Error(`the server saw ${t.length} requests, not ${inFlight}`);
      const tm = inFlight === 1 ? (t[0] ?? Number.NaN) : median(t);
      truth.push(...t);
      for (const m of ms) {
        measured.push(m);
        error.push(m - tm);
      }
    }
    return { measured, error, truth };
  };
  const runs = {
    alone: { h2h: await errors(h2hOnce, 1), bb: await errors(bbOnce, 1) },
    inFlight: { h2h: await errors(h2hOnce, CONCURRENCY), bb: await errors(bbOnce, CONCURRENCY) },
  };

  // CPU and memory per 1,000 probes, 10 at a time.
  const pool = async (n: number, job: () => Promise<unknown>): Promise<void> => {
    let left = n;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await job();
      }),
    );
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const cpu0 = process.cpuUsage();
  const rss0 = process.memoryUsage().rss / 2 ** 20;
  await pool(CPU_PROBES, () => probeEndpoint(api, target, 'saldo-user', opts));
  const cpu1 = process.cpuUsage(cpu0);
  const rss1 = process.memoryUsage().rss / 2 ** 20;
  const probeCpu = (cpu1.user + cpu1.system) / 1000;
  const bbPid = bb.pid ?? 0;
  const bbCpu0 = procCpuMs(bbPid);
  const bbRss0 = procRssMiB(bbPid);
  await pool(CPU_PROBES, bbOnce);
  const bbCpu = procCpuMs(bbPid) - bbCpu0;
  const bbRss1 = procRssMiB(bbPid);

  const f = (x: number): string => x.toFixed(2);
  console.log(`machine: ${machineLine()}`);
  console.log(
    `simulator (separate process) with a fixed injected delay of ${DELAY_MS} ms; saldo-user over POST; ${SAMPLES} samples per tool and case`,
  );
  for (const [name, run] of Object.entries(runs)) {
    const abs = (xs: number[]): number[] => xs.map(Math.abs);
    const h = median(abs(run.h2h.error));
    const b = median(abs(run.bb.error));
    console.log(
      `${name === 'alone' ? 'alone (one probe at a time)' : `${CONCURRENCY} probes in flight`}: server-side truth median ${f(median([...run.h2h.truth, ...run.bb.truth]))} ms`,
    );
    console.log(
      `  h2h probe:          measured median ${f(median(run.h2h.measured))} ms; measured - true: median ${f(median(run.h2h.error))} ms, median |error| ${f(h)} ms`,
    );
    console.log(
      `  blackbox_exporter:  measured median ${f(median(run.bb.measured))} ms (sum of probe_http_duration_seconds phases); measured - true: median ${f(median(run.bb.error))} ms, median |error| ${f(b)} ms`,
    );
    console.log(`  h2h |error| / blackbox |error|: ${f(h / b)} (target at most 1.00): ${h <= b ? 'met' : 'NOT MET'}`);
  }
  console.log(
    `CPU per 1,000 probes: h2h probe ${f(probeCpu)} ms, blackbox_exporter ${f(bbCpu)} ms; ratio ${f(probeCpu / bbCpu)}x (target at most 1.5x)`,
  );
  console.log(
    `memory over 1,000 probes: h2h probe RSS ${f(rss0)} -> ${f(rss1)} MiB; blackbox_exporter RSS ${f(bbRss0)} -> ${f(bbRss1)} MiB`,
  );
  console.log(
    '(the probe also validates each answer against openapi.yaml and the read-only clauses; blackbox matches a regular expression)',
  );
} finally {
  bb.kill('SIGTERM');
  mock.child.kill('SIGTERM');
}

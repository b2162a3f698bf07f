// Wall time of the full contract gate (`h2h contract`, embedded simulator, writes included), median of N runs,
// beside two references, the same scenarios and checks over node:http without Playwright (the in-process runner):
// in a process of its own started cold, as the gate is, and warm in this process.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { loadApiModel } from '../src/openapi/load.ts';
import { runInProcess } from '../src/run/in-process-runner.ts';
import { REMOTE_CONCURRENCY } from '../src/run/workers.ts';
import { packageRoot } from '../src/shared/package-root.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import { mostInFlight } from '../src/simulator/request-log.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { BIN, machineLine, median } from './machine.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const reports = mkdtempSync(join(tmpdir(), 'h2h-bench-'));

/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU seconds of this process's children that have ended and been waited for (Linux: /proc/self/stat). */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // cutime and cstime: fields 16 and 17 of stat, 14 and 15 after the command's name.
  return (Number(fields[13]) + Number(fields[14])) / TICKS;
}

/** The same plan in this process: wall and CPU milliseconds, and the simulator and the gate both counted. */
async function reference(): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const api = loadApiModel();
  const sim = await startSimulator();
  const settings = embeddedTarget(sim);
  await runInProcess(api, settings, { maxInvites: settings.maxInvites });
  await sim.close();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

/**
 * The same plan by the in-process runner in a process of its own, started cold as `h2h contract` is: Node's
 * start, the toolkit's modules (the built ones the CLI runs), V8 compiling them, the simulator, the run. The
 * warm reference above runs in this process after the first, its code already compiled and optimised.
 */
function coldReference(): { ms: number; cpuMs: number } {
  const dist = (path: string): string => pathToFileURL(join(packageRoot(), 'dist', 'src', path)).href;
  const script = [
    `const { loadApiModel } = await import(${JSON.stringify(dist('openapi/load.js'))});`,
    `const { runInProcess } = await import(${JSON.stringify(dist('run/in-process-runner.js'))});`,
    `const { embeddedTarget } = await import(${JSON.stringify(dist('simulator/embedded.js'))});`,
    `const { startSimulator } = await import(${JSON.stringify(dist('simulator/server.js'))});`,
    'const sim = await startSimulator();',
    'const settings = embeddedTarget(sim);',
    'const run = await runInProcess(loadApiModel(), settings, { maxInvites: settings.maxInvites });',
    'await sim.close();',
    "if (run.findings.length) { console.error('findings in the reference run'); process.exit(1); }",
  ].join('\n');
  const t0 = performance.now();
  const cpu0 = childrenCpu();
  // With the compiled code h2h keeps (src/shared/compile-cache.ts), in the same folder: both start alike.
  const env = {
    ...process.env,
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
  };
  const r = spawnSync(process.execPath, ['--no-maglev', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`cold reference exited ${r.status}\n${r.stderr.slice(-2000)}`);
  return { ms, cpuMs: (childrenCpu() - cpu0) * 1000 };
}

/** Cases per second of the random phase alone, in process (4 operations x EXAMPLES requests, seeded). */
async function randomPhase(examples: number): Promise<number> {
  const api = loadApiModel();
  const sim = await startSimulator();
  const settings = embeddedTarget(sim);
  const t0 = performance.now();
  await runInProcess(api, settings, { maxInvites: settings.maxInvites, grep: 'random phase', examples, seed: 1 });
  const seconds = (performance.now() - t0) / 1000;
  await sim.close();
  return (4 * examples) / seconds;
}

/**
 * The remote case (`tsx bench/gate.ts remote`): the simulator answering every request after 300 ms, as a provider
 * in another country, and `h2h contract` read-only at a concurrency; wall time against the floor
 * requests x latency / concurrency (the simulator counts the requests).
 */
async function remote(
  concurrency: number | undefined,
  latencyMs: number,
): Promise<{ ms: number; floorMs: number; most: number }> {
  const sim = await startSimulator({ latencyMs });
  const args = ['contract', '--base-url', sim.url, '--api-key', sim.apiKey, '--reports-dir', join(reports, 'remote')];
  if (concurrency) args.push('--concurrency', String(concurrency));
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - t0;
  const requests = sim.log.length;
  // The bound itself, as the target saw it.
  const most = mostInFlight(sim.log);
  await sim.close();
  if (code !== 0) throw new Error(`remote gate run exited ${code}\n${err.slice(-2000)}`);
  return { ms, floorMs: (requests * latencyMs) / (concurrency ?? REMOTE_CONCURRENCY), most };
}

if (process.argv[2] === 'remote') {
  const LATENCY = 300;
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  console.log(`machine: ${machineLine()}`);
  for (const c of [undefined, 8]) {
    const results: { ms: number; floorMs: number; most: number }[] = [];
    for (let i = 0; i < runs; i++) results.push(await remote(c, LATENCY));
    const wall = median(results.map((r) => r.ms));
    const floor = median(results.map((r) => r.floorMs));
    console.log(
      `remote gate, ${LATENCY} ms per answer, --concurrency ${c ?? `${REMOTE_CONCURRENCY} (default)`}: median ${(wall / 1000).toFixed(1)} s over ${runs} runs [${results.map((r) => (r.ms / 1000).toFixed(1)).join(', ')}]; floor (requests x latency / concurrency) ${(floor / 1000).toFixed(1)} s; ratio ${(wall / floor).toFixed(2)}x; most in flight at the target ${Math.max(...results.map((r) => r.most))}`,
    );
  }
  process.exit(0);
}

const gate: number[] = [];
const gateCpu: number[] = [];
const ref: number[] = [];
const refCpu: number[] = [];
const cold: number[] = [];
const coldCpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const cpu0 = childrenCpu();
  const r = spawnSync(process.execPath, [BIN, 'contract', '--reports-dir', join(reports, String(i))], {
    env: { ...process.env, H2H_BASE_URL: '', H2H_API_KEY: '' },
    encoding: 'utf8',
  });
  gate.push(performance.now() - t0);
  gateCpu.push((childrenCpu() - cpu0) * 1000);
  if (r.status !== 0)
    throw new Error(`gate run ${i} exited ${r.status}\n${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  const one = await reference();
  ref.push(one.ms);
  refCpu.push(one.cpuMs);
  const c = coldReference();
  cold.push(c.ms);
  coldCpu.push(c.cpuMs);
}
const g = median(gate);
const rf = median(ref);
const rates: number[] = [];
for (let i = 0; i < RUNS; i++) rates.push(await randomPhase(250));
const scenarios = (
  JSON.parse(readFileSync(join(reports, '0', 'contract-summary.json'), 'utf8')) as { totals: { scenarios: number } }
).totals.scenarios;
console.log(`machine: ${machineLine()}`);
console.log(
  `full gate (h2h contract, embedded simulator, ${scenarios} scenarios: hand-written, coverage phase, near misses, properties, random phase 25 per operation): median ${(g / 1000).toFixed(2)} s over ${RUNS} runs [${gate.map((x) => (x / 1000).toFixed(2)).join(', ')}]`,
);
console.log(
  `reference (same scenarios and checks, node:http, no Playwright, in process): median ${(rf / 1000).toFixed(2)} s [${ref.map((x) => (x / 1000).toFixed(2)).join(', ')}]`,
);
const s = (list: number[]): string =>
  `${(median(list) / 1000).toFixed(2)} s [${list.map((x) => (x / 1000).toFixed(2)).join(', ')}]`;
console.log(`reference in a process of its own, started cold as the gate is (node, the built modules): ${s(cold)}`);
console.log(
  `ratio gate/reference: ${(g / median(cold)).toFixed(2)}x against the cold process, ${(g / rf).toFixed(2)}x against the warm one (Playwright startup, workers, reporters)`,
);
console.log(
  `CPU (user + system, every process): gate ${s(gateCpu)}; reference warm ${s(refCpu)}, cold ${s(coldCpu)}; ratio ${(median(gateCpu) / median(coldCpu)).toFixed(1)}x cold, ${(median(gateCpu) / median(refCpu)).toFixed(1)}x warm`,
);
console.log(`target: under 6 s -> ${g < 6000 ? 'met' : 'NOT met'}`);
console.log(
  `random phase alone, in process (4 operations x 250 requests, seed 1): median ${median(rates).toFixed(0)} cases/s [${rates.map((x) => x.toFixed(0)).join(', ')}]`,
);

// How long `h2h --help` takes beside `node -e 0`, measured in the same run: median of RUNS each, alternating. Then
// how long `h2h mock` takes to its H2H_BASE_URL= line, without a reading file and with the one a gate run wrote.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { BIN, machineLine, median, procCpuMs, startMock } from './machine.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function timeMs(args: string[], cwd?: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** `h2h mock ARGS` until it prints its base URL: wall ms and the process's CPU ms by then. */
async function mockReady(args: readonly string[]): Promise<{ ms: number; cpuMs: number }> {
  const t0 = process.hrtime.bigint();
  const { child } = await startMock(args);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpuMs = procCpuMs(child.pid as number);
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill();
  await exited;
  return { ms, cpuMs };
}

// One of each first, unmeasured: the file cache is warm for both.
timeMs(['-e', '0']);
timeMs([BIN, '--help']);
const bare: number[] = [];
const help: number[] = [];
for (let i = 0; i < RUNS; i++) {
  bare.push(timeMs(['-e', '0']));
  help.push(timeMs([BIN, '--help']));
}
const f = (x: number): string => x.toFixed(1);
console.log(`machine: ${machineLine()}`);
console.log(`node -e 0:   median ${f(median(bare))} ms  (${bare.map(f).join(', ')})`);
console.log(`h2h --help:  median ${f(median(help))} ms  (${help.map(f).join(', ')})`);
const ratio = median(help) / median(bare);
console.log(`ratio ${ratio.toFixed(2)}x (target at most 3x): ${ratio <= 3 ? 'met' : 'NOT MET'}`);

// A reading file as a user has one: the embedded gate's, written beside its reports.
const dir = mkdtempSync(join(os.tmpdir(), 'h2h-bench-startup-'));
try {
  timeMs([BIN, 'contract', '--allow-writes'], dir);
  const reading = join(dir, 'reports', 'provider-reading.yaml');
  for (const [label, args] of [
    ['h2h mock', []],
    ['h2h mock --legal-profile FILE', ['--legal-profile', reading]],
  ] as const) {
    await mockReady(args);
    const runs: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await mockReady(args));
    const ms = runs.map((r) => r.ms);
    console.log(
      `${label}: to its base URL, median ${f(median(ms))} ms (${ms.map(f).join(', ')}), CPU median ${f(median(runs.map((r) => r.cpuMs)))} ms`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

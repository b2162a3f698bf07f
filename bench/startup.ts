// How long `h2h --help` takes beside `node -e 0`, measured in the same run: median of RUNS each, alternating.
import { spawnSync } from 'node:child_process';
import { BIN, machineLine, median } from './machine.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function timeMs(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
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

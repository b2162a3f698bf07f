// The running probe's memory: RSS of its whole process tree after 40 one-second rounds (then 20 more under
// transport faults), beside bare Node and Node holding the probe's libraries, all measured in the same run.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { packageRoot } from '../src/shared/package-root.ts';
import { BIN, machineLine, procRssMiB } from './machine.ts';

const ROUNDS = Number(process.env.BENCH_CYCLES ?? 40);
const root = packageRoot();

/** Every descendant of a process, from /proc/<pid>/task/<tid>/children. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return out;
  }
  for (const c of tasks.map(Number)) out.push(c, ...descendants(c));
  return out;
}
const treeMiB = (pid: number): number => [pid, ...descendants(pid)].reduce((s, p) => s + procRssMiB(p), 0);

function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const look = (d: Buffer): void => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.on('exit', (c) => reject(new Error(`${args.join(' ')} exited ${c}: ${out}`)));
  });
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const stop = (c: ChildProcess): Promise<void> =>
  new Promise((r) => {
    if (c.exitCode !== null) return r();
    c.once('exit', () => r());
    c.kill('SIGTERM');
  });

// References: bare Node, and Node holding the libraries the probe loads (idle, 3 s after start).
const refs: [string, string][] = [
  ['bare Node (idle)', 'setInterval(() => {}, 1000); console.log("ready")'],
  [
    'Node + prom-client, ajv, yaml, node-cron (idle)',
    'for (const m of ["prom-client", "ajv", "yaml", "node-cron"]) require(m); setInterval(() => {}, 1000); console.log("ready")',
  ],
];
const refRss: [string, number][] = [];
for (const [name, code] of refs) {
  const { child } = await start(['-e', code], /ready/);
  await sleep(3000);
  refRss.push([name, treeMiB(child.pid ?? 0)]);
  await stop(child);
}

const mock = await start([BIN, 'mock'], /H2H_BASE_URL=(\S+)\nH2H_API_KEY=(\S+)/);
const url = mock.match[1] ?? '';
const key = mock.match[2] ?? '';
const probe = await start(
  [
    BIN,
    'probe',
    '--base-url',
    url,
    '--api-key',
    key,
    '--schedule',
    '* * * * * *',
    '--timeout',
    '800ms',
    '--listen',
    '127.0.0.1:0',
  ],
  /H2H_PROBE_URL=(\S+)/,
);
const probeUrl = probe.match[1] ?? '';
const rounds = async (): Promise<number> =>
  ((await (await fetch(`${probeUrl}/healthz`)).json()) as { rounds: number }).rounds;
try {
  while ((await rounds()) < ROUNDS) await sleep(250);
  const pid = probe.child.pid ?? 0;
  const after = treeMiB(pid);
  const children = descendants(pid).length;
  for (const fault of ['reset', 'hang', 'oversized-body', 'slow-drip']) {
    await fetch(`${url}/__sim/fault?name=${fault}`, { method: 'POST' });
    const until = (await rounds()) + 5;
    while ((await rounds()) < until) await sleep(250);
  }
  await fetch(`${url}/__sim/fault?name=none`, { method: 'POST' });
  const afterFaults = treeMiB(pid);
  const f = (x: number): string => x.toFixed(1);
  console.log(`machine: ${machineLine()}`);
  for (const [name, mib] of refRss) console.log(`${name.padEnd(48)} ${f(mib)} MiB RSS`);
  console.log(
    `h2h probe after ${ROUNDS} one-second rounds:        ${f(after)} MiB RSS (whole tree; ${children} child processes) (target at most 72 MiB, no child): ${after <= 72 && children === 0 ? 'met' : 'NOT MET'}`,
  );
  console.log(`h2h probe after 20 more rounds under transport faults: ${f(afterFaults)} MiB RSS`);
  console.log(`ratio to Node holding the same libraries: ${f(after / (refRss[1]?.[1] ?? 1))}x`);
} finally {
  await stop(probe.child);
  await stop(mock.child);
}

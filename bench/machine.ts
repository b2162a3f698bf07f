import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/package-root.ts';

/** One line naming the machine a benchmark ran on, for the README. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const CLK_TCK = 100; // Linux USER_HZ
/** The shipped CLI, built by `npm run build`. */
export const BIN = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

/** CPU time (user + system) a process has used, in ms, from /proc. */
export function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime
}

export function procRssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await fetch(url).catch(() => undefined))?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** `h2h mock ARGS` in its own process, on a free loopback port, once it says where it serves and with what key. */
export function startMock(args: readonly string[]): Promise<{ child: ChildProcess; url: string; key: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mock', '--listen', '127.0.0.1:0', ...args], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /H2H_BASE_URL=(\S+)/.exec(out)?.[1];
      const key = /H2H_API_KEY=(\S+)/.exec(out)?.[1];
      if (url && key) resolve({ child, url, key });
    });
    child.on('exit', (c) => reject(new Error(`mock exited ${c}`)));
  });
}

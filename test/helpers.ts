import { type ChildProcess, spawn } from 'node:child_process';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { redactedLines } from '../src/cli/command.ts';
import { COMMANDS } from '../src/cli/commands.ts';
import { run } from '../src/cli/h2h.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import type { Endpoint, Exchange, Method, Params } from '../src/openapi/types.ts';
import {
  PROBE_DEFAULTS,
  PROBE_FILE_EXTRAS,
  type ProbeConfig,
  type ProbeTarget,
  resolveProbeConfig,
} from '../src/probe/config.ts';
import { refuseKeyInFile } from '../src/redact.ts';
import { type ContractSummary, summarize } from '../src/report/summary.ts';
import { CONTRACT_FILE_EXTRAS, type ContractConfig, type Deviation, resolveContractConfig } from '../src/run/config.ts';
import { type InProcessOptions, type RunResult, runInProcess } from '../src/run/in-process-runner.ts';
import { packageRoot } from '../src/shared/package-root.ts';
import { resolveSettings } from '../src/shared/settings.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import type { Simulator } from '../src/simulator/server.ts';

export { freePort } from '../src/shared/free-port.ts';

export const ROOT = packageRoot();
/** The shipped CLI: JavaScript built by `npm run build` (`prepare` runs it on `npm ci`). */
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** A hand-made exchange, for check tests that need no server. */
export function ex(
  endpoint: Endpoint,
  params: Params,
  body: unknown,
  opts: { method?: Method; http?: number } = {},
): Exchange {
  const text = body === undefined ? '<html>oops</html>' : JSON.stringify(body);
  return {
    endpoint,
    method: opts.method ?? 'POST',
    params,
    url: `http://127.0.0.1:1/api/${endpoint}`,
    httpStatus: opts.http ?? 200,
    contentType: 'application/json',
    bodyText: text,
    body,
    durationMs: 1,
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command to its end in its own process, its output collected, with a deadline: past it the process is killed by
 * its own PID and the promise rejects with `what`, the deadline and the output's tail (through `show`, a redaction).
 */
export function runProcess(
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; what: string; show?: (s: string) => string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const tail = (opts.show ?? ((s: string) => s))(`${stdout}\n${stderr}`).slice(-3000);
      reject(new Error(`${opts.what}: not done in ${opts.timeoutMs} ms\n${tail}`));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the h2h CLI as a user would, with a deadline; never leaves the child behind. */
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    timeoutMs: opts.timeoutMs ?? 120_000,
    what: `h2h ${args.join(' ')}`,
  });
}

/**
 * `h2h ARGS` in this process: the command's own run (src/cli/h2h.ts), its console captured, the environment's
 * target and config unset. For usage and configuration errors, which exit 2 before anything is sent: the same
 * code and message as the CLI (each table keeps one case through the CLI), without a process to start for each.
 */
export async function cliInProcess(args: string[]): Promise<CliResult> {
  const [name = '', ...rest] = args;
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) throw new Error(`no command ${name}`);
  let stdout = '';
  let stderr = '';
  const saved = Object.fromEntries(Object.keys(NO_TARGET_ENV).map((k) => [k, process.env[k]]));
  Object.assign(process.env, NO_TARGET_ENV);
  try {
    const io = redactedLines(
      (line) => {
        stdout += line;
      },
      (line) => {
        stderr += line;
      },
    );
    const code = await run(entry, rest, false, io);
    return { code, stdout, stderr };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export interface Running {
  child: ChildProcess;
  url: string;
  apiKey: string;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts a long-running h2h command and waits until it prints `H2H_BASE_URL=` (or the given ready pattern). */
export function startCli(
  args: string[],
  ready = /^H2H_BASE_URL=(\S+)$/m,
  env: NodeJS.ProcessEnv = {},
): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let done = false;
    const stop = (): Promise<void> => stopChild(child);
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      void stop();
      reject(new Error(`h2h ${args.join(' ')} was not ready in 20 s\n${out}\n${err}`));
    }, 20_000);
    const check = (): void => {
      const m = ready.exec(out) ?? ready.exec(err);
      if (!m || done) return;
      done = true;
      clearTimeout(timer);
      resolve({
        child,
        url: m[1] ?? '',
        apiKey: /^H2H_API_KEY=(\S+)$/m.exec(out)?.[1] ?? '',
        stdout: () => out,
        stderr: () => err,
        stop,
      });
    };
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      check();
    });
    child.on('exit', (code) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`h2h ${args.join(' ')} exited ${code} before ready\n${out}\n${err}`));
    });
  });
}

/** Every file of a zip archive (as Playwright's HTML report embeds its data), by name, decompressed. */
export async function unzip(buf: Buffer): Promise<Map<string, Buffer>> {
  const { inflateRawSync } = await import('node:zlib');
  const out = new Map<string, Buffer>();
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString();
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(dataStart, dataStart + size);
    out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Every file under a folder, with Playwright's embedded HTML-report archive opened, as name -> bytes. */
export async function everyByteWritten(dir: string): Promise<Map<string, Buffer>> {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const files = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.set(p, readFileSync(p));
    }
  };
  walk(dir);
  for (const [p, content] of [...files]) {
    if (!p.endsWith('.html')) continue;
    const m = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(content.toString());
    if (!m?.[1]) continue;
    for (const [name, data] of await unzip(Buffer.from(m[1], 'base64'))) files.set(`${p}!${name}`, data);
  }
  return files;
}

/** Stops a child process: SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
export function stopChild(child: ChildProcess | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Starts `h2h probe` on one target every second with an 800 ms deadline, listening on a free port. */
export function startProbe(target: { url: string; apiKey: string }, extra: string[] = []): Promise<Running> {
  const args = [
    'probe',
    '--base-url',
    target.url,
    '--api-key',
    target.apiKey,
    '--schedule',
    '* * * * * *',
    '--timeout',
    '800ms',
    '--listen',
    '127.0.0.1:0',
    ...extra,
  ];
  return startCli(args, /^H2H_PROBE_URL=(\S+)$/m);
}

/** Samples of a Prometheus text exposition, by `name{labels}`. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m?.[1]) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** The environment a CLI test runs in: no target, key or config inherited from the shell. */
export const NO_TARGET_ENV: NodeJS.ProcessEnv = { H2H_BASE_URL: '', H2H_API_KEY: '', H2H_CONFIG: '' };

/**
 * The flags that point h2h contract (or replay) at a simulator as a real target, writes allowed within its
 * fixture's budget: the same target the embedded simulator gives (embeddedTarget).
 */
export function writeTargetFlags(sim: Simulator): string[] {
  const t = embeddedTarget(sim);
  return [
    '--base-url',
    t.baseUrl,
    '--api-key',
    t.apiKey,
    '--allow-writes',
    '--product',
    t.product,
    '--kind',
    t.kind,
    ...t.msisdns.flatMap((m) => ['--msisdn', m]),
    '--max-invites',
    String(t.maxInvites),
  ];
}

/** A target as the config would resolve it (no jitter unless given). */
export function targetFor(sim: { url: string; apiKey: string }, over: Partial<ProbeTarget> = {}): ProbeTarget {
  return {
    name: 'sim',
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    schedule: PROBE_DEFAULTS.schedule,
    timeoutMs: PROBE_DEFAULTS.timeoutMs,
    jitterMs: 0,
    ...over,
  };
}

/**
 * The gate run in this process (no Playwright) against a simulator as its embedded target, summarized as the
 * reporter does: the same planner, executor and summary as `h2h contract`, a few seconds faster per run.
 */
export async function gateInProcess(
  sim: Simulator,
  opts: Partial<InProcessOptions> & { deviations?: Deviation[] } = {},
  baseUrl?: string,
  target: { allowWrites?: boolean; apiKey?: string | undefined } = {},
): Promise<{ run: RunResult; summary: ContractSummary }> {
  const allowWrites = target.allowWrites ?? true;
  const t = {
    ...embeddedTarget(sim),
    ...(baseUrl ? { baseUrl } : {}),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    allowWrites,
  };
  const settings = { maxInvites: allowWrites ? t.maxInvites : 0, settleMs: 1000, seed: 1, ...opts };
  const run = await runInProcess(loadApiModel(), t, settings);
  const summary = summarize(run.results, {
    target: sim.url,
    allowWrites,
    strict: settings.strict ?? false,
    cap: settings.maxInvites,
    settleMs: settings.settleMs,
    seed: settings.seed,
    deviations: settings.deviations ?? [],
  });
  return { run, summary };
}

/** The clauses a summary names violated, in clause order. */
export const violated = (s: ContractSummary | undefined): string[] =>
  (s?.clauses ?? []).filter((c) => c.status === 'violated').map((c) => c.id);

/** The contract config a command line would resolve (the settings table, then the contract's own checks). */
export function contractConfigOf(argv: string[], env: NodeJS.ProcessEnv = {}): ContractConfig {
  return resolveContractConfig(
    resolveSettings('contract', argv, { env, fileExtras: CONTRACT_FILE_EXTRAS, checkFile: refuseKeyInFile }),
    env,
  );
}

/** The probe config a command line would resolve. */
export function probeConfigOf(argv: string[], env: NodeJS.ProcessEnv = {}): ProbeConfig {
  return resolveProbeConfig(
    resolveSettings('probe', argv, { env, fileExtras: PROBE_FILE_EXTRAS, checkFile: refuseKeyInFile }),
    env,
  );
}

/** Shell-like words of a command line: quotes kept together, comments and what follows a pipe dropped. */
export function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.replace(/\s#.*$/, '').matchAll(/'[^']*'|"[^"]*"|\S+/g)) {
    const w = m[0];
    if (['|', '&&', ';', '>', '&', '||'].includes(w) || w.startsWith('>')) break;
    out.push(w.replace(/^['"]|['"]$/g, ''));
  }
  return out;
}

/** One process's peak resident set size, as test/peak-rss.cjs wrote it at its exit. */
export interface PeakRss {
  pid: number;
  mb: number;
  what: string;
}

/**
 * Runs the CLI as runCli does, with every Node process it starts (itself and its children) reporting its peak
 * resident set size (VmHWM) at exit through test/peak-rss.cjs: `peaks` is one entry per process, largest first.
 */
export async function runCliPeak(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult & { peaks: PeakRss[] }> {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'h2h-peak-'));
  const file = join(dir, 'peaks.txt');
  const preload = join(ROOT, 'test', 'peak-rss.cjs');
  try {
    const r = await runCli(args, {
      ...opts,
      env: {
        ...opts.env,
        H2H_TEST_PEAK_FILE: file,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
      },
    });
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = '';
    }
    const peaks = text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [pid = '0', kb = '0', ...what] = line.split(' ');
        return { pid: Number(pid), mb: Number(kb) / 1024, what: what.join(' ') };
      })
      .sort((a, b) => b.mb - a.mb);
    return { ...r, peaks };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A test server on a free loopback port: its URL, and a close that ends its open connections too. */
export async function listenLocal(server: http.Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

// The fidelity of a learned reading (issue 27): the gate's requests against a provider, recorded with their answers,
// replayed against the mock serving what that run learned; each pair compared by shape (src/openapi/shape.ts). The
// share of equal pairs is the reading's fidelity. `tsx bench/fidelity.ts` prints it for every reading of the covering
// set, the legal profiles and the independent implementations of test/fixtures/independent/.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import { callApi } from '../src/client/client.ts';
import { bodyOf, records } from '../src/openapi/exchange.ts';
import { type ApiModel, loadApiModel } from '../src/openapi/load.ts';
import { answerShape, shapeDifferences } from '../src/openapi/shape.ts';
import type { Exchange } from '../src/openapi/types.ts';
import { readingYaml } from '../src/reading/index.ts';
import { type ContractSummary, summarize } from '../src/report/summary.ts';
import { runInProcess } from '../src/run/in-process-runner.ts';
import { packageRoot } from '../src/shared/package-root.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import {
  describeReading,
  KNOB_NAMES,
  PROFILES,
  parseReading,
  type Reading,
  servedFromFile,
} from '../src/simulator/legal.ts';
import { recordedAccount } from '../src/simulator/recorded-account.ts';
import { startSimulator } from '../src/simulator/server.ts';
import type { GateTarget } from '../src/target/target.ts';
import { battery } from './battery.ts';
import { coveringReadings } from './covering.ts';
import { machineLine } from './machine.ts';

/** One request of a gate run and its answer, with when it went out (ms from the run's start) and in what order. */
export type Recorded = Exchange & { seq: number; atMs: number; battery?: string };

/** A gate run against a provider: every exchange it made, and its summary (the reading it learned among it). */
export interface Recording {
  target: GateTarget & { baseUrl: string; product: string; kind: 'akrab' | 'circle' };
  exchanges: Recorded[];
  summary: ContractSummary;
}

/**
 * The gate run in process against a target, with every exchange recorded in the order it went out; then, unless
 * `battery` is false, the battery of bench/battery.ts sent one request at a time and recorded after it.
 */
export async function recordGate(
  api: ApiModel,
  target: Recording['target'],
  opts: { maxInvites: number; settleMs?: number; seed?: number; battery?: boolean } = { maxInvites: 60 },
): Promise<Recording> {
  const exchanges: Recorded[] = [];
  const settings = { maxInvites: opts.maxInvites, settleMs: opts.settleMs ?? 3000, seed: opts.seed ?? 1 };
  const started = performance.now();
  const run = await runInProcess(api, target, { ...settings, record: (ex, at) => exchanges.push({ ...ex, ...at }) });
  const summary = summarize(run.results, {
    target: target.baseUrl,
    allowWrites: target.allowWrites,
    strict: false,
    cap: settings.maxInvites,
    settleMs: settings.settleMs,
    seed: settings.seed,
  });
  exchanges.sort((a, b) => a.seq - b.seq);
  if (opts.battery !== false && target.allowWrites) {
    const known = exchanges
      .flatMap((ex) => (bodyOf(ex)?.ok === true ? (records(ex) ?? []) : []))
      .find(
        (r) => typeof r.trx_id === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(r.trx_id) && typeof r.date === 'string',
      );
    const requests = battery(api, {
      apiKey: target.apiKey,
      ...(known ? { known: { trxId: String(known.trx_id), date: String(known.date) } } : {}),
      product: target.product,
      kind: target.kind,
      msisdn: target.msisdns?.[0] ?? '081200000001',
      tag: `BAT${Date.now().toString(36).toUpperCase()}`,
    });
    let seq = (exchanges.at(-1)?.seq ?? 0) + 1;
    for (const r of requests) {
      const atMs = performance.now() - started;
      const got = await callApi({
        baseUrl: target.baseUrl,
        endpoint: r.endpoint,
        method: r.method,
        params: r.params,
        ...(r.body ? { body: r.body } : {}),
      });
      if (got.exchange) exchanges.push({ ...got.exchange, seq: seq++, atMs, battery: r.what });
    }
  }
  return { target, exchanges, summary };
}

/** How one replay went: the pairs compared, those equal by shape, and the differences, most frequent first. */
export interface Fidelity {
  total: number;
  equal: number;
  /** The battery's requests alone (bench/battery.ts): how many, and how many equal by shape. */
  battery: { total: number; equal: number };
  /** Pairs not compared: one side alone was rate-limited (which request meets a limit is the moment's). */
  timing: number;
  /** equal / total. */
  share: number;
  differences: { what: string; count: number; example: string }[];
}

/**
 * The number of records the limits decide for a request: the `limit` it sent, or the learned default; and the
 * learned maximum. A page of that many records was cut by a limit, and its count is compared; any other count is
 * the data's.
 */
function limitsDeciding(api: ApiModel, ex: Exchange, reading: Reading): number[] {
  const sent = Number(api.foldRequest('history-transaksi', ex.params).params.limit);
  const max = Number.parseInt(reading['max-limit'], 10);
  const byDefault = Number(reading['default-limit']);
  return [Number.isFinite(sent) ? sent : byDefault, max].filter((n) => Number.isFinite(n) && n > 0);
}

/**
 * The mock of a recording, started as a client team starts it: the reading file written as the gate writes it,
 * served by `h2h mock --legal-profile FILE` as a process of its own (the built CLI), on the account the run saw
 * (recordedAccount, given by `--fixtures`) with the provider's key. Its URL, the reading it read, and how to stop it.
 */
async function startServedMock(
  api: ApiModel,
  rec: Recording,
  dir: string,
): Promise<{ url: string; reading: Reading; close(): Promise<void> }> {
  const file = join(dir, 'provider-reading.yaml');
  writeFileSync(
    file,
    readingYaml(rec.summary.reading, rec.summary.vocabulary, {
      from: rec.target.baseUrl,
      at: new Date().toISOString(),
    }),
  );
  const price = rec.summary.vocabulary.products?.[rec.target.product]?.price;
  const fixture = recordedAccount(api, rec.exchanges, {
    apiKey: rec.target.apiKey,
    product: rec.target.product,
    kind: rec.target.kind,
    msisdns: rec.target.msisdns,
    ...(price !== undefined ? { price } : {}),
  });
  // The account holds the provider's numbers and key: it stays in this run's own temporary folder.
  const account = join(dir, 'account.yaml');
  writeFileSync(account, stringifyYaml(fixture));
  const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  const argv = [cli, 'mock', '--legal-profile', file, '--fixtures', account, '--listen', '127.0.0.1:0'];
  const mock = await startProcess('h2h mock', argv, /^H2H_BASE_URL=(\S+)$/m);
  return { url: mock.match[1] ?? '', reading: servedFromFile(file).reading, close: mock.stop };
}

/**
 * Replays a recording against the mock serving what its run learned (startServedMock). Each request goes out at
 * its recorded time and after every request answered before it went out.
 */
export async function replayFidelity(
  api: ApiModel,
  rec: Recording,
  dir = mkdtempSync(join(tmpdir(), 'h2h-fidelity-')),
): Promise<Fidelity> {
  const sim = await startServedMock(api, rec, dir);
  const list = rec.exchanges;
  const answers: (Exchange | undefined)[] = [];
  try {
    // In the order they went out, each after every request answered before it went out, at its recorded time, and
    // never closer to the one before than it went then: the replay is never burstier than the run (a rate limit).
    const answeredAt = list.map((ex) => ex.atMs + ex.durationMs);
    const byAnswer = list.map((_, i) => i).sort((a, b) => (answeredAt[a] ?? 0) - (answeredAt[b] ?? 0));
    const done: Promise<void>[] = [];
    let k = 0;
    let last = { at: 0, sent: 0 };
    const t0 = performance.now();
    for (const [i, ex] of list.entries()) {
      while (k < byAnswer.length && (answeredAt[byAnswer[k] ?? 0] ?? 0) <= ex.atMs) await done[byAnswer[k++] ?? 0];
      const now = performance.now() - t0;
      const wait = Math.max(ex.atMs - now, last.sent + (ex.atMs - last.at) - now);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      last = { at: ex.atMs, sent: performance.now() - t0 };
      done[i] = callApi({
        baseUrl: sim.url,
        endpoint: ex.endpoint,
        method: ex.method,
        params: ex.params,
        ...(ex.sentBody ? { body: ex.sentBody } : {}),
      }).then((r) => {
        answers[i] = r.exchange;
      });
    }
    await Promise.all(done);
  } finally {
    await sim.close();
  }
  const differences = new Map<string, { count: number; example: string }>();
  let equal = 0;
  let timing = 0;
  const ofBattery = { total: list.filter((ex) => ex.battery).length, equal: 0 };
  for (const [i, ex] of list.entries()) {
    const got = answers[i];
    // Which request a rate limit meets is the moment's, not the reading's (it learns the rate): a pair where one
    // side alone was limited is not compared, and counted apart. Limited on both sides, it is compared.
    if (got && limited(ex) !== limited(got)) {
      timing++;
      continue;
    }
    const want = answerShape(ex);
    const shape = got ? answerShape(got) : undefined;
    const decides = limitsDeciding(api, ex, sim.reading);
    const count =
      want.records !== undefined &&
      shape?.records !== undefined &&
      (decides.includes(want.records.count) || decides.includes(shape.records.count));
    const diff = shape ? shapeDifferences(want, shape, { count }) : ['no answer'];
    if (!diff.length) {
      equal++;
      if (ex.battery) ofBattery.equal++;
      continue;
    }
    const what = `${ex.battery ? `battery ${ex.battery}, ` : ''}${ex.endpoint}: ${diff.map((d) => d.replace(/:.*/, '')).join(', ')}`;
    const seen = differences.get(what) ?? {
      count: 0,
      example: `${ex.method} ${JSON.stringify(ex.params).slice(0, 160)}: ${diff.join('; ').slice(0, 400)}`,
    };
    seen.count++;
    differences.set(what, seen);
  }
  const total = list.length - timing;
  return {
    total,
    equal,
    timing,
    battery: ofBattery,
    share: total ? equal / total : 1,
    differences: [...differences].map(([what, d]) => ({ what, ...d })).sort((a, b) => b.count - a.count),
  };
}

/** Whether an answer is a rate limit's (429, or 503 with Retry-After): the contract's words for one. */
const limited = (ex: Exchange): boolean =>
  ex.httpStatus === 429 || (ex.httpStatus === 503 && ex.headers?.['retry-after'] !== undefined);

/** A fidelity measured against the simulator playing a reading, as its embedded target (writes allowed). */
export async function simulatorFidelity(
  api: ApiModel,
  reading: Reading,
): Promise<{ fidelity: Fidelity; recording: Recording }> {
  const sim = await startSimulator({ reading });
  let recording: Recording;
  try {
    const t = embeddedTarget(sim);
    recording = await recordGate(api, t, { maxInvites: t.maxInvites });
  } finally {
    await sim.close();
  }
  return { fidelity: await replayFidelity(api, recording), recording };
}

/** A process started and ready: what its ready pattern matched, everything it printed, and how to stop it. */
export interface Started {
  child: ChildProcess;
  match: RegExpExecArray;
  output(): string;
  /** SIGTERM to its own PID (SIGKILL after 5 s); resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `node ARGV` and resolves once its stdout matches `ready` (90 s at most, for a machine under load; killed and
 * rejected otherwise).
 */
export function startProcess(name: string, argv: string[], ready: RegExp): Promise<Started> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = (): Promise<void> =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in 90 s: ${out}${err}`));
    }, 90_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, match, output: () => out + err, stop });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited ${code} before it was ready: ${out}${err}`));
    });
  });
}

/** An independent implementation of test/fixtures/independent/, started on a free port (stopped by its PID). */
export interface Independent {
  url: string;
  key: string;
  suite: { product: string; kind: 'akrab' | 'circle'; msisdn: string[] };
  stop(): Promise<void>;
}

export const INDEPENDENT = ['kancil', 'garuda', 'merak', 'badak'] as const;
export type IndependentName = (typeof INDEPENDENT)[number];

export async function startIndependent(name: IndependentName, legal?: string): Promise<Independent> {
  const server = join(packageRoot(), 'test', 'fixtures', 'independent', name, 'server.mjs');
  const started = await startProcess(
    name,
    [server, '--port', '0', ...(legal ? ['--legal', legal] : [])],
    /^SUITE=(.*)$/m,
  );
  const out = started.output();
  return {
    url: /^URL=(\S+)$/m.exec(out)?.[1] ?? '',
    key: /^KEY=(\S+)$/m.exec(out)?.[1] ?? '',
    suite: JSON.parse(started.match[1] ?? '{}') as Independent['suite'],
    stop: started.stop,
  };
}

/** A fidelity measured against an independent implementation, writes allowed to its suite's numbers. */
export async function independentFidelity(
  api: ApiModel,
  name: IndependentName,
  legal?: string,
): Promise<{ fidelity: Fidelity; recording: Recording }> {
  const server = await startIndependent(name, legal);
  let recording: Recording;
  try {
    recording = await recordGate(api, {
      baseUrl: server.url,
      apiKey: server.key,
      allowWrites: true,
      product: server.suite.product,
      kind: server.suite.kind,
      msisdns: server.suite.msisdn,
    });
  } finally {
    await server.stop();
  }
  return { fidelity: await replayFidelity(api, recording), recording };
}

const pct = (f: Fidelity): string =>
  `${(100 * f.share).toFixed(2)} % (${f.equal}/${f.total}; battery ${f.battery.equal}/${f.battery.total})`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const api = loadApiModel();
  console.log(`machine: ${machineLine()}`);
  const rows: [string, Fidelity][] = [];
  const show = (name: string, f: Fidelity): void => {
    rows.push([name, f]);
    console.log(
      `${name}: ${pct(f)}${
        f.differences.length
          ? `; ${f.differences
              .slice(0, 3)
              .map((d) => `${d.count} ${d.what}`)
              .join('; ')}`
          : ''
      }`,
    );
  };
  // `tsx bench/fidelity.ts [independent] [profiles] [covering]`: the groups to measure (all when none is named).
  const groups = process.argv.slice(2);
  const wants = (g: string): boolean => groups.length === 0 || groups.includes(g);
  if (wants('independent'))
    for (const name of INDEPENDENT) show(`independent ${name}`, (await independentFidelity(api, name)).fidelity);
  if (wants('profiles'))
    for (const name of Object.keys(PROFILES))
      show(`profile ${name}`, (await simulatorFidelity(api, parseReading(name))).fidelity);
  if (wants('covering'))
    for (const reading of coveringReadings(KNOB_NAMES.filter((k) => k !== 'rate-limit')))
      show(`covering ${describeReading(reading)}`, (await simulatorFidelity(api, reading)).fidelity);
  const worst = rows.reduce((a, b) => (b[1].share < a[1].share ? b : a));
  console.log(
    `lowest: ${worst[0]} ${pct(worst[1])}; every reading at least 99 %: ${rows.every(([, f]) => f.share >= 0.99) ? 'met' : 'NOT met'}`,
  );
}

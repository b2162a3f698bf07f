import { createConnection, createServer, type Socket } from 'node:net';
import { Semaphore } from 'async-mutex';
import { TokenBucket } from '../shared/token-bucket.js';

/**
 * The pace of a run's requests: at most `concurrency` in flight (`--concurrency`) and at most `rate` a second
 * (`--rate-limit`). One pace serves a whole run: the gate's global setup holds it, and its Playwright workers,
 * which are separate processes, ask it for their turn over loopback (`servePace`, `paceClient`), so the bound is
 * the run's, whatever the number of workers, and a worker with work takes the slots another leaves free.
 */
export interface Pace {
  /**
   * Waits until `n` requests may go at once (n slots, at most all of them, and n tokens of the rate), and
   * returns what frees the slots (idempotent).
   */
  acquire(n?: number): Promise<() => void>;
  /** Tells the pace how an answer came: rate-limited (429, or 503 with Retry-After) or not. */
  report(limited: boolean): void;
  /** The rate the provider was seen to allow when it last limited the run (requests a second), if it did. */
  providerRate(): number | undefined;
}

/**
 * The run's rate, learned from the provider, as TCP learns a link's: unpaced (or at the user's `--rate-limit`)
 * until the first rate-limit answer; then paced evenly from what got through in the second before it, rising
 * quickly (10 %, or half a request a second, every 2 s) until the provider limits a paced run. The rate it
 * limited at is what the provider allows at most: the run cuts to 90 % of it, and rises again only carefully, by
 * 5 % every 5 s up to 97 % of it, and past that only after a minute there without a limit (the provider may have
 * raised its limit). Cut at most once a second; never above the user's ceiling. A provider that allows 8 a
 * second is asked about 7.8.
 */
export class LearnedRate {
  private readonly accepted: number[] = [];
  private rate: number | undefined;
  /** The rate the provider limited the paced run at: the top the run rises back to. */
  private seen: number | undefined;
  /**
   * The provider's rate as measured at each paced limit: what got through in the 2 s before it (at most the pace
   * then). One limit alone may mislead either way: after a slower stretch it is a burst's (a loaded runner sends
   * unevenly), and a full token bucket lets a window count its burst too; the median of them is the rate.
   */
  private readonly measures: number[] = [];
  private lastCut = Number.NEGATIVE_INFINITY;
  private lastChange = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ceiling: number | undefined,
    private readonly onChange: (rate: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.rate = ceiling;
  }

  /** The rate the provider allows, as measured when it limited the paced run (requests a second). */
  providerRate(): number | undefined {
    if (!this.measures.length) return undefined;
    const sorted = [...this.measures].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  }

  /** The run's rate now: undefined while unpaced. */
  current(): number | undefined {
    return this.rate;
  }

  report(limited: boolean): void {
    const t = this.now();
    if (!limited) {
      this.accepted.push(t);
      while ((this.accepted[0] ?? t) < t - 2000) this.accepted.shift();
      this.rise(t);
      return;
    }
    if (t - this.lastCut < 1000) return;
    this.lastCut = t;
    const within = (ms: number): number => this.accepted.filter((a) => a >= t - ms).length;
    if (this.rate === undefined) {
      // Unpaced until now: a guess from what got through in the last second, then rising quickly.
      this.set(Math.max(1, within(1000) * 0.9), t);
      return;
    }
    this.seen = this.rate;
    this.measures.push(Math.min(this.rate, within(2000) / 2));
    this.set(Math.max(0.5, this.rate * 0.9), t);
  }

  private rise(t: number): void {
    if (this.rate === undefined) return;
    const every = this.seen === undefined ? 2000 : 5000;
    if (t - this.lastCut < every || t - this.lastChange < every) return;
    const ceiling = this.ceiling ?? Number.POSITIVE_INFINITY;
    if (this.seen === undefined) {
      this.set(Math.min(ceiling, Math.max(this.rate * 1.1, this.rate + 0.5)), t);
      return;
    }
    const top = Math.min(ceiling, this.seen * 0.97);
    if (this.rate < top) this.set(Math.min(top, this.rate * 1.05), t);
    // A minute at the top without a limit: the provider may allow more now; look a little higher.
    else if (t - this.lastChange >= PROBE_AFTER_MS && this.rate < ceiling) {
      this.seen *= 1.05;
      this.lastChange = t;
    }
  }

  private set(rate: number, t: number): void {
    this.rate = rate;
    this.lastChange = t;
    this.onChange(rate);
  }
}

/** How long at the top without a limit before the rate looks past what the provider was seen to allow. */
const PROBE_AFTER_MS = 60_000;

/** The run's pace could not be asked: nothing was sent for the request that waited (an internal error). */
export class PaceLost extends Error {}

export interface PaceLimits {
  /** Requests in flight; unbounded when absent. */
  concurrency?: number | undefined;
  /** Requests a second; unpaced when absent. */
  rate?: number | undefined;
}

/** The pace itself, in this process: `--concurrency`, and a rate learned below `--rate-limit` (LearnedRate). */
export function localPace(limits: PaceLimits): Pace {
  const slots = limits.concurrency ? Math.max(1, Math.floor(limits.concurrency)) : undefined;
  const semaphore = slots ? new Semaphore(slots) : undefined;
  let bucket = limits.rate ? new TokenBucket(limits.rate, 1) : undefined;
  const learned = new LearnedRate(limits.rate, (rate) => {
    if (bucket) bucket.setRate(rate);
    else bucket = new TokenBucket(rate, 1);
  });
  return {
    report: (limited) => learned.report(limited),
    providerRate: () => learned.providerRate(),
    async acquire(n = 1) {
      const weight = slots ? Math.min(Math.max(1, n), slots) : 1;
      const release = semaphore ? (await semaphore.acquire(weight))[1] : () => {};
      for (let i = 0; i < n; i++) await bucket?.take();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        release();
      };
    },
  };
}

/**
 * Serves a pace to other processes on 127.0.0.1 (a free port). A line `+id n` asks for n slots, answered `id`
 * when granted (and ` r` with the rate the provider was seen to allow, once it limited the run); `-id` frees them;
 * `!1` and `!0` report an answer rate-limited or not. A connection that closes frees what it held, and what it was
 * still waiting for is freed as soon as it is granted.
 */
export async function servePace(pace: Pace): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const held = new Map<string, () => void>();
    let closed = false;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === '!0' || line === '!1') {
          pace.report(line === '!1');
          continue;
        }
        const m = /^([+-])(\d{1,15})(?: (\d{1,6}))?$/.exec(line);
        if (!m) {
          socket.destroy();
          return;
        }
        const id = m[2] as string;
        if (m[1] === '-') {
          held.get(id)?.();
          held.delete(id);
          continue;
        }
        void pace.acquire(Number(m[3] ?? 1)).then((release) => {
          if (closed) return release();
          held.set(id, release);
          const seen = pace.providerRate();
          socket.write(seen === undefined ? `${id}\n` : `${id} ${seen.toFixed(2)}\n`);
        });
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      sockets.delete(socket);
      for (const release of held.values()) release();
      held.clear();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the pace server has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The pace a `servePace` in another process holds. A lost connection fails what waits, never lets it through. */
export function paceClient(port: number): Pace {
  let socket: Socket | undefined;
  let buffered = '';
  let nextId = 0;
  let holding = 0;
  let seen: number | undefined;
  const waiting = new Map<string, { resolve: () => void; reject: (err: Error) => void }>();
  const idle = (): void => {
    // Kept open between requests, but never what keeps the process alive.
    if (waiting.size === 0 && holding === 0) socket?.unref();
  };
  const connected = (): Socket => {
    if (socket) return socket;
    const s = createConnection({ host: '127.0.0.1', port });
    s.setNoDelay(true);
    s.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const [id = '', rate] = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        if (rate !== undefined) seen = Number(rate);
        waiting.get(id)?.resolve();
        waiting.delete(id);
      }
    });
    const lost = (err?: Error): void => {
      // An error and then the close of the same connection: only the first counts.
      if (socket !== s) return;
      socket = undefined;
      buffered = '';
      holding = 0;
      const why = new PaceLost(`lost the run's pace (127.0.0.1:${port}): ${err?.message ?? 'connection closed'}`);
      for (const w of waiting.values()) w.reject(why);
      waiting.clear();
    };
    s.on('error', lost);
    s.on('close', () => lost());
    socket = s;
    return s;
  };
  return {
    report(limited) {
      // Best effort: a lost pace fails the next acquire, which is where it matters.
      if (socket) socket.write(limited ? '!1\n' : '!0\n');
    },
    providerRate: () => seen,
    async acquire(n = 1) {
      const s = connected();
      s.ref();
      const id = String(++nextId);
      await new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        s.write(`+${id} ${Math.max(1, Math.floor(n))}\n`);
      });
      if (socket === s) holding++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (socket !== s) return;
        holding--;
        s.write(`-${id}\n`);
        idle();
      };
    },
  };
}

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
   * returns what frees the slots (idempotent). `first`: served before the others waiting (an invite: the
   * invites go in batches, one scenario after another in one worker, a chain nothing else shortens, while the
   * reads beside it fill whatever slots it leaves).
   */
  acquire(n?: number, first?: boolean): Promise<() => void>;
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
  private rate: number | undefined;
  /** The rate the provider limited the paced run at: the top the run rises back to. */
  private seen: number | undefined;
  /** When the answers that got through in the last `LONGEST_MS` came. */
  private readonly through: number[] = [];
  /**
   * The least rate whose bucket, as a reading names a rate (`rateLimitOf`), lets through what got through in every
   * window of 1 to 30 s so far: the provider's rate as the run can know it, the most of every window, as a
   * stretch the runner sent slowly says nothing.
   */
  private least = 0;
  private limited = false;
  private lastCut = Number.NEGATIVE_INFINITY;
  private lastChange = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ceiling: number | undefined,
    private readonly onChange: (rate: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.rate = ceiling;
  }

  /** The rate the provider allows, once it limited the run (requests a second). */
  providerRate(): number | undefined {
    return this.limited && this.least > 0 ? this.least : undefined;
  }

  /** The run's rate now: undefined while unpaced. */
  current(): number | undefined {
    return this.rate;
  }

  report(limited: boolean): void {
    const t = this.now();
    if (!limited) {
      this.measure(t);
      this.rise(t);
      return;
    }
    this.limited = true;
    if (t - this.lastCut < 1000) return;
    this.lastCut = t;
    const within = (ms: number): number => this.through.filter((a) => a >= t - ms).length;
    if (this.rate === undefined) {
      // Unpaced until now: a guess from what got through in the last second, then rising quickly.
      this.set(Math.max(1, within(1000) * 0.9), t);
      return;
    }
    this.seen = this.rate;
    this.set(Math.max(0.5, this.rate * 0.9), t);
  }

  private measure(t: number): void {
    this.through.push(t);
    while ((this.through[0] ?? t) < t - LONGEST_MS) this.through.shift();
    // Every window of at least a second that ends now, each begun by an answer. Answers come to a loaded runner
    // unevenly: two of a window may have been let through just outside it.
    for (let i = 0; (this.through[i] ?? t) <= t - SHORTEST_MS; i++) {
      const n = this.through.length - i - 2;
      const seconds = (t - (this.through[i] ?? t)) / 1000;
      // The least rate with n <= rate * seconds + burst: a burst of 2 below 8/s, a quarter second's above.
      this.least = Math.max(this.least, Math.min((n - 2) / seconds, n / (seconds + 0.25)));
    }
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

/**
 * The windows the provider's rate is measured over (ms): from 1 s, for a burst after a slow stretch, to 30 s, for
 * a stretch just under the limit, where the burst is spent and only the rate lets it through.
 */
const SHORTEST_MS = 1000;
const LONGEST_MS = 30_000;

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
    async acquire(n = 1, first = false) {
      const weight = slots ? Math.min(Math.max(1, n), slots) : 1;
      const release = semaphore ? (await semaphore.acquire(weight, first ? 1 : 0))[1] : () => {};
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
 * Writes lines to a socket, those of one turn of the event loop in one write: a request's release and report (or
 * the grants of several) are one system call, not two, and a run makes thousands.
 */
function lineWriter(socket: Socket): (line: string) => void {
  let pending = '';
  return (line) => {
    if (!pending)
      process.nextTick(() => {
        const out = pending;
        pending = '';
        if (!socket.destroyed) socket.write(out);
      });
    pending += line;
  };
}

/**
 * Serves a pace to other processes on 127.0.0.1 (a free port). A line `+id n` asks for n slots (`+id n f`: before
 * the others waiting, Pace.acquire's `first`), answered `id` when granted (and ` r` with the rate the provider was
 * seen to allow, once it limited the run); `-id` frees them; `!1` and `!0` report an answer rate-limited or not.
 * A connection that closes frees what it held, and what it was still waiting for is freed as soon as it is granted.
 */
export async function servePace(pace: Pace): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const write = lineWriter(socket);
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
        const m = /^([+-])(\d{1,15})(?: (\d{1,6}))?( f)?$/.exec(line);
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
        void pace.acquire(Number(m[3] ?? 1), m[4] !== undefined).then((release) => {
          if (closed) return release();
          held.set(id, release);
          const seen = pace.providerRate();
          write(seen === undefined ? `${id}\n` : `${id} ${seen.toFixed(2)}\n`);
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
  let write: (line: string) => void = () => {};
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
    write = lineWriter(s);
    return s;
  };
  return {
    report(limited) {
      // Best effort: a lost pace fails the next acquire, which is where it matters.
      if (socket) write(limited ? '!1\n' : '!0\n');
    },
    providerRate: () => seen,
    async acquire(n = 1, first = false) {
      const s = connected();
      s.ref();
      const id = String(++nextId);
      await new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        write(`+${id} ${Math.max(1, Math.floor(n))}${first ? ' f' : ''}\n`);
      });
      if (socket === s) holding++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (socket !== s) return;
        holding--;
        write(`-${id}\n`);
        idle();
      };
    },
  };
}

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
}

/** The run's pace could not be asked: nothing was sent for the request that waited (an internal error). */
export class PaceLost extends Error {}

export interface PaceLimits {
  /** Requests in flight; unbounded when absent. */
  concurrency?: number | undefined;
  /** Requests a second; unpaced when absent. */
  rate?: number | undefined;
}

/** The pace itself, in this process. */
export function localPace(limits: PaceLimits): Pace {
  const slots = limits.concurrency ? Math.max(1, Math.floor(limits.concurrency)) : undefined;
  const semaphore = slots ? new Semaphore(slots) : undefined;
  const bucket = limits.rate ? new TokenBucket(limits.rate, 1) : undefined;
  return {
    async acquire(n = 1) {
      const weight = slots ? Math.min(Math.max(1, n), slots) : 1;
      const release = semaphore ? (await semaphore.acquire(weight))[1] : () => {};
      if (bucket) for (let i = 0; i < n; i++) await bucket.take();
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
 * when granted; `-id` frees them. A connection that closes frees what it held, and what it was still waiting
 * for is freed as soon as it is granted.
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
          socket.write(`${id}\n`);
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
        const id = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
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

import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Params } from '../openapi/types.js';
import { redact } from '../redact.js';

export interface LogEntry {
  seq: number;
  method: string;
  /** The path as received, redacted: a key sent as a segment of it (`/api/saldo-user/<key>`) is hidden. */
  path: string;
  endpoint?: string;
  /** Parameters as received, the key hidden (under any name, as a value or as a name). */
  params?: Params;
  httpStatus: number;
  ok?: boolean;
  status?: string;
  /** Where the answer's parts came from (the `h2h-source` header): learned, openapi.yaml or the simulator's own. */
  source?: string;
  /** True when this invite request passed every check but money and slots: it could have been charged. */
  couldSucceed: boolean;
  /** True when it came on a connection that had carried an earlier request (HTTP keep-alive). */
  keptConnection?: boolean;
  /** When the request arrived, in milliseconds of the process's clock (performance.now). */
  arrivedMs?: number;
  /** Server-side time from the request's arrival to the last byte of the answer (ground truth for benchmarks). */
  durationMs?: number;
}

/**
 * The simulator's request log: a ring of the last `capacity` requests, oldest first when read. What it holds is
 * shown (`/__sim/log`): every key the simulator accepts is hidden in it, wherever the request put it.
 */
export class RequestLog {
  private readonly ring: LogEntry[] = [];
  private next = 0;
  private seq = 0;
  /** The requests each connection has carried so far. */
  private readonly carried = new WeakMap<Socket, number>();

  constructor(readonly capacity = 20_000) {}

  /** A new entry for a request that arrived, logged, and timed until its answer is sent. */
  open(method: string, url: URL, res: http.ServerResponse): LogEntry {
    const entry: LogEntry = { seq: ++this.seq, method, path: url.pathname, httpStatus: 0, couldSucceed: false };
    const { socket } = res;
    const carried = socket ? (this.carried.get(socket) ?? 0) : 0;
    if (socket) this.carried.set(socket, carried + 1);
    entry.keptConnection = carried > 0;
    this.push(entry);
    const arrived = performance.now();
    entry.arrivedMs = arrived;
    res.once('finish', () => {
      entry.durationMs = performance.now() - arrived;
    });
    return entry;
  }

  /** Logs a request; its path is redacted here (its parameters, read later, by redactValue where they are set). */
  push(entry: LogEntry): void {
    entry.path = redact(entry.path);
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The entries, oldest first (a copy). */
  entries(): LogEntry[] {
    return this.ring.length < this.capacity
      ? [...this.ring]
      : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}

/** The most requests the simulator had in hand at one time (arrival to last byte of the answer). */
export function mostInFlight(entries: readonly LogEntry[]): number {
  const edges: [number, number][] = [];
  for (const e of entries)
    if (e.arrivedMs !== undefined && e.durationMs !== undefined)
      edges.push([e.arrivedMs, 1], [e.arrivedMs + e.durationMs, -1]);
  // An answer finished at the instant another arrives did not overlap it.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) {
    now += step;
    most = Math.max(most, now);
  }
  return most;
}

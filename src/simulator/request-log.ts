import type { Params } from '../openapi/types.js';

export interface LogEntry {
  seq: number;
  method: string;
  path: string;
  endpoint?: string;
  /** Parameters as received, the key hidden. */
  params?: Params;
  httpStatus: number;
  ok?: boolean;
  status?: string;
  /** True when this invite request passed every check but money and slots: it could have been charged. */
  couldSucceed: boolean;
  /** Server-side time from the request's arrival to the last byte of the answer (ground truth for benchmarks). */
  durationMs?: number;
}

/** The simulator's request log: a ring of the last `capacity` requests, oldest first when read. */
export class RequestLog {
  private readonly ring: LogEntry[] = [];
  private next = 0;

  constructor(readonly capacity = 20_000) {}

  push(entry: LogEntry): void {
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

import { performance } from 'node:perf_hooks';
import type { Phases } from './types.js';

/**
 * When each socket event of one call happened (performance.now()), 0 until it has: the call's record, as
 * blackbox_exporter's roundTrip is its trace's. Each is taken first thing in the handler of its event.
 */
export interface Marks {
  /** The name resolved (the call's start for an IP address). */
  resolved: number;
  /** The connect call made. */
  connecting: number;
  /** The TCP connection up; through a proxy for HTTPS, the tunnel standing. */
  connected: number;
  /** The TLS handshake done. */
  secured: number;
  /** The request handed to the connection. */
  sent: number;
  firstByte: number;
  /** The socket's latest data event: the time of the bytes the HTTP parser hands on next. */
  lastData: number;
  /** The body's last byte (or the byte where it was cut). */
  end: number;
}

export function newMarks(): Marks {
  return { resolved: 0, connecting: 0, connected: 0, secured: 0, sent: 0, firstByte: 0, lastData: 0, end: 0 };
}

/** The phases of a call that started at `t0`: a phase still under way ends now. */
export function phasesOf(marks: Marks, t0: number, secure: boolean): Phases {
  const now = performance.now();
  const resolved = marks.resolved || now;
  const connected = marks.connected || (marks.connecting ? now : 0);
  const secured = secure ? marks.secured || (marks.connected ? now : connected) : connected;
  return {
    dns: resolved - t0,
    connect: marks.connecting ? connected - marks.connecting : 0,
    tls: secure && marks.connected ? secured - connected : 0,
    firstByte: marks.sent ? (marks.firstByte || now) - marks.sent : 0,
    body: marks.firstByte ? (marks.end || now) - marks.firstByte : 0,
  };
}

/** The target's time: the sum of the phases. */
export function sumOf(p: Phases): number {
  return p.dns + p.connect + p.tls + p.firstByte + p.body;
}

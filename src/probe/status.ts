import type { TlsInfo } from '../client/client.js';
import { calledUrl } from '../openapi/exchange.js';
import { READ_ONLY_ENDPOINTS } from '../openapi/types.js';
import { redact, redactValue } from '../redact.js';
import type { ProbeTarget } from './config.js';
import { PHASES } from './metrics.js';
import type { ProbeResult } from './probe-endpoint.js';

/** The last result of every probe, for /status (findings redacted). */
export interface StatusEntry {
  success: boolean;
  reason?: string;
  message?: string;
  httpStatus: number;
  /** The URL called, without its query string (redacted). */
  url?: string;
  durationMs: number;
  /** Each phase of the request (dns, connect, tls, first_byte, body), in ms. */
  phasesMs?: Record<string, number>;
  at: string;
  findings: unknown[];
  drift: unknown[];
  skipped?: string;
  tls?: Record<string, unknown>;
}

/** The last result of every probe of every target, as /status and `--once` show them (redacted). */
export class StatusStore {
  readonly byTarget = new Map<string, Record<string, StatusEntry>>();
  readonly startedAt = new Date().toISOString();

  set(target: string, endpoint: string, entry: StatusEntry): void {
    const t = this.byTarget.get(target) ?? {};
    t[endpoint] = entry;
    this.byTarget.set(target, t);
  }

  /** A probe's result as /status keeps it. */
  record(target: string, res: ProbeResult): void {
    this.set(target, res.endpoint, {
      success: res.success,
      ...(res.reason ? { reason: res.reason } : {}),
      ...(res.message ? { message: redact(res.message) } : {}),
      httpStatus: res.httpStatus,
      ...(res.exchange ? { url: redact(calledUrl(res.exchange)) } : {}),
      durationMs: Math.round(res.totalMs * 10) / 10,
      phasesMs: Object.fromEntries(
        Object.entries(PHASES).map(([key, name]) => [
          name,
          Math.round(res.phases[key as keyof typeof PHASES] * 10) / 10,
        ]),
      ),
      at: new Date(res.at * 1000).toISOString(),
      ...(res.tls ? { tls: tlsStatus(res.tls) } : {}),
      findings: redactValue(res.findings),
      drift: res.drift,
    });
  }

  /** A probe not sent, and why. */
  skipped(target: string, endpoint: string, why: string): void {
    this.set(target, endpoint, {
      success: false,
      httpStatus: 0,
      durationMs: 0,
      at: new Date().toISOString(),
      findings: [],
      drift: [],
      skipped: why,
    });
  }

  /** /status: when it started, how many rounds, each target's schedule and its probes' last results. */
  json(rounds: number, targets: readonly ProbeTarget[]): Record<string, unknown> {
    return {
      startedAt: this.startedAt,
      rounds,
      endpoints: READ_ONLY_ENDPOINTS,
      schedules: Object.fromEntries(
        targets.map((t) => [t.name, { schedule: t.schedule, jitterMs: t.jitterMs, timeoutMs: t.timeoutMs }]),
      ),
      targets: Object.fromEntries(this.byTarget),
    };
  }
}

/** The handshake as /status shows it: the version, the expiry as a date, and why it did not verify. */
function tlsStatus(tls: TlsInfo): Record<string, unknown> {
  return {
    version: tls.version,
    verified: tls.authorized,
    ...(tls.certExpiry !== undefined ? { certExpiry: new Date(tls.certExpiry * 1000).toISOString() } : {}),
    ...(tls.authorizationError ? { error: tls.authorizationError } : {}),
  };
}

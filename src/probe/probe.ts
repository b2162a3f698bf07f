import cron, { type ScheduledTask } from 'node-cron';
import type { TlsInfo } from '../client/client.js';
import type { ApiModel } from '../openapi/load.js';
import { READ_ONLY_ENDPOINTS, type ReadOnlyEndpoint } from '../openapi/types.js';
import { redact, redactValue } from '../redact.js';
import { NO_SCHEDULE, type ProbeConfig, type ProbeTarget } from './config.js';
import type { ExporterProbe } from './exporter.js';
import { ProbeMetrics } from './metrics.js';
import { type ProbeResult, probeEndpoint } from './probe-endpoint.js';

export type LogLine = (fields: Record<string, unknown>) => void;

/** One structured line per failed probe, on stderr; text or JSON lines; always redacted. */
export function makeLogger(
  format: 'text' | 'json',
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): LogLine {
  return (fields) => {
    const f = { time: new Date().toISOString(), ...fields };
    if (format === 'json') write(redact(JSON.stringify(f)));
    else
      write(
        redact(
          Object.entries(f)
            .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"]/.test(v) ? JSON.stringify(v) : String(v)}`)
            .join(' '),
        ),
      );
  };
}

/** The last result of every probe, for /status (findings redacted). */
export interface StatusEntry {
  success: boolean;
  reason?: string;
  message?: string;
  httpStatus: number;
  durationMs: number;
  at: string;
  findings: unknown[];
  drift: unknown[];
  skipped?: string;
  tls?: Record<string, unknown>;
}

/** What a target's round runs: the saldo and history probes, and cek-trx-id when a transaction is known. */
type ProbeOpts = Parameters<typeof probeEndpoint>[3];

/**
 * Where a probe's result goes: the process's metrics, /status and the log (the schedule's rounds); /status and
 * the log only (a /probe round, whose metrics are its answer); nowhere (the history a lookup needed).
 */
type Sink = 'metrics' | 'status' | 'none';

/** How one round runs. */
interface RoundMode {
  /** With no transaction known, cek-trx-id waits for this round's history instead of being skipped. */
  lookupAfterHistory?: boolean;
  /** One endpoint only (/probe?endpoint=E). */
  only?: ReadOnlyEndpoint;
  /** The round's deadline, in place of the target's timeout (/probe: from the scrape timeout). */
  timeoutMs?: number;
  /** @defaultValue 'metrics' */
  sink?: Sink;
}

/**
 * The probe: probes the read-only endpoints of every target, each target on its own node-cron schedule offset
 * by its own jitter, so that no target delays another; exports metrics and keeps the last result of each
 * probe. It cannot reach the write endpoint: its endpoints are typed ReadOnlyEndpoint and probeEndpoint
 * refuses anything else.
 */
export class Probe implements ExporterProbe {
  readonly metrics: ProbeMetrics;
  readonly status = new Map<string, Record<string, StatusEntry>>();
  private readonly tasks: ScheduledTask[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly waiting = new Set<NodeJS.Timeout>();
  private readonly newest = new Map<string, string>();
  readonly startedAt = new Date().toISOString();
  /** Rounds completed (one round: every probe of one target once). */
  rounds = 0;

  constructor(
    private readonly api: ApiModel,
    private readonly cfg: ProbeConfig,
    private readonly log: LogLine = makeLogger(cfg.logFormat),
  ) {
    this.metrics = new ProbeMetrics(this.scheduled());
  }

  /** The targets on a schedule of their own; the others are probed only when scraped at /probe. */
  private scheduled(): ProbeTarget[] {
    return this.cfg.targets.filter((t) => t.schedule !== NO_SCHEDULE);
  }

  get timeoutOffsetMs(): number {
    return this.cfg.timeoutOffsetMs;
  }

  targetNames(): string[] {
    return this.cfg.targets.map((t) => t.name);
  }

  timeoutOf(name: string): number {
    return this.cfg.targets.find((t) => t.name === name)?.timeoutMs ?? this.cfg.timeoutMs;
  }

  /**
   * A round of one configured target now, for /probe: within `deadlineMs` in all (a lookup after history gets
   * what is left), its results in /status and the log, not in the process's metrics.
   */
  roundNow(name: string, endpoint: ReadOnlyEndpoint | undefined, deadlineMs: number): Promise<ProbeResult[]> {
    const t = this.cfg.targets.find((x) => x.name === name);
    if (!t) return Promise.reject(new Error(`no target named '${name}'`));
    return this.track(
      this.round(t, {
        lookupAfterHistory: true,
        timeoutMs: deadlineMs,
        sink: 'status',
        ...(endpoint ? { only: endpoint } : {}),
      }),
    );
  }

  /**
   * Every target probed once, all at once (`h2h probe --once`). With no transaction known yet, cek-trx-id
   * waits for history's newest: no schedule has to be kept here.
   */
  async cycle(): Promise<ProbeResult[]> {
    return (
      await Promise.all(this.cfg.targets.map((t) => this.track(this.round(t, { lookupAfterHistory: true }))))
    ).flat();
  }

  /**
   * One round of one target. Its three probes run at once, so the round ends within one deadline and fits the
   * interval (the config is refused otherwise); cek-trx-id looks up the configured transaction or the newest
   * that an earlier round's history showed, and is skipped (counted, with the reason in /status) while none is
   * known, unless `lookupAfterHistory`.
   */
  async round(t: ProbeTarget, mode: RoundMode = {}): Promise<ProbeResult[]> {
    const started = performance.now();
    const timeoutMs = mode.timeoutMs ?? t.timeoutMs;
    const sink = mode.sink ?? 'metrics';
    const opts: ProbeOpts = {
      method: this.cfg.method,
      timeoutMs,
      bodyCap: this.cfg.bodyCap,
      historyLimit: this.cfg.historyLimit,
    };
    const wants = (e: ReadOnlyEndpoint): boolean => mode.only === undefined || mode.only === e;
    const known = t.trxId ?? this.newest.get(t.name);
    const probes: Promise<ProbeResult | undefined>[] = [];
    if (wants('saldo-user')) probes.push(this.one(t, 'saldo-user', opts, sink));
    const lookupWaits = wants('cek-trx-id') && !known && mode.lookupAfterHistory === true;
    if (wants('history-transaksi') || lookupWaits) {
      const history = this.one(t, 'history-transaksi', opts, wants('history-transaksi') ? sink : 'none').then((h) => {
        if (h.newestTrxId) this.newest.set(t.name, h.newestTrxId);
        return h;
      });
      if (wants('history-transaksi')) probes.push(history);
      if (lookupWaits)
        probes.push(
          history.then(() => {
            // Within the round's one deadline: the lookup gets what the history left.
            const found = this.newest.get(t.name);
            const left = Math.floor(timeoutMs - (performance.now() - started));
            return found && left > 0
              ? this.one(t, 'cek-trx-id', { ...opts, trxId: found, timeoutMs: left }, sink)
              : this.skipLookup(t, sink, found ? 'the history took the whole deadline' : undefined);
          }),
        );
    }
    if (wants('cek-trx-id') && !lookupWaits) {
      if (known) probes.push(this.one(t, 'cek-trx-id', { ...opts, trxId: known }, sink));
      else this.skipLookup(t, sink);
    }
    const results = (await Promise.all(probes)).filter((r): r is ProbeResult => r !== undefined);
    this.rounds++;
    return results;
  }

  private skipLookup(
    t: ProbeTarget,
    sink: Sink,
    why = 'no transaction ID yet: none configured and no earlier history showed one',
  ): undefined {
    if (sink === 'metrics') this.metrics.recordSkipped(t.name, 'cek-trx-id');
    if (sink !== 'none')
      this.setStatus(t.name, 'cek-trx-id', {
        success: false,
        httpStatus: 0,
        durationMs: 0,
        at: new Date().toISOString(),
        findings: [],
        drift: [],
        skipped: why,
      });
    return undefined;
  }

  private async one(t: ProbeTarget, endpoint: ReadOnlyEndpoint, opts: ProbeOpts, sink: Sink): Promise<ProbeResult> {
    const res = await probeEndpoint(this.api, t, endpoint, opts);
    if (sink === 'none') return res;
    if (sink === 'metrics') this.metrics.record(res);
    this.setStatus(t.name, endpoint, {
      success: res.success,
      ...(res.reason ? { reason: res.reason } : {}),
      ...(res.message ? { message: redact(res.message) } : {}),
      httpStatus: res.httpStatus,
      durationMs: Math.round(res.totalMs * 10) / 10,
      at: new Date(res.at * 1000).toISOString(),
      ...(res.tls ? { tls: tlsStatus(res.tls) } : {}),
      findings: redactValue(res.findings),
      drift: res.drift,
    });
    if (!res.success) {
      this.log({
        level: 'warn',
        msg: 'probe failed',
        target: t.name,
        endpoint,
        reason: res.reason,
        http_status: res.httpStatus,
        duration_ms: Math.round(res.totalMs),
        detail: res.message ?? '',
      });
    }
    return res;
  }

  private setStatus(target: string, endpoint: string, entry: StatusEntry): void {
    const t = this.status.get(target) ?? {};
    t[endpoint] = entry;
    this.status.set(target, t);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  /**
   * A scheduled slot of one target: its round starts at the slot plus the target's jitter; how late it
   * started is exported, so a busy process shows instead of silently skewing every timing.
   */
  private async slot(t: ProbeTarget, slot: Date): Promise<void> {
    const due = slot.getTime() + t.jitterMs;
    const wait = due - Date.now();
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiting.delete(timer);
          resolve();
        }, wait);
        this.waiting.add(timer);
      });
      if (this.tasks.length === 0) return; // stopped while waiting
    }
    this.metrics.recordLateness(t.name, Math.max(0, Date.now() - due) / 1000);
    await this.track(this.round(t));
  }

  /** Starts one schedule per target; a round still running when its next slot comes is counted, never stacked. */
  start(): void {
    const logger = {
      info: () => undefined,
      debug: () => undefined,
      warn: (m: string) => this.log({ level: 'warn', msg: 'schedule', detail: String(m) }),
      error: (m: string | Error) =>
        this.log({ level: 'error', msg: 'schedule', detail: m instanceof Error ? m.message : String(m) }),
    };
    for (const t of this.scheduled()) {
      const task = cron.schedule(t.schedule, (ctx) => this.slot(t, ctx.date), {
        name: `h2h-probe-${t.name}`,
        noOverlap: true,
        logger,
      });
      task.on('execution:overlap', () => this.metrics.recordOverlap(t.name));
      task.on('execution:missed', () => this.metrics.recordMissed(t.name));
      task.on('execution:failed', (ctx) =>
        this.log({
          level: 'error',
          msg: 'probe round failed',
          target: t.name,
          detail: ctx.execution?.error?.message ?? '',
        }),
      );
      this.tasks.push(task);
    }
  }

  /** Stops every schedule and waits for the rounds in flight, whose probes end by their own deadline. */
  async stop(): Promise<void> {
    const tasks = this.tasks.splice(0);
    for (const task of tasks) {
      await task.stop();
      await task.destroy();
    }
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  statusJson(): Record<string, unknown> {
    return {
      startedAt: this.startedAt,
      rounds: this.rounds,
      endpoints: READ_ONLY_ENDPOINTS,
      schedules: Object.fromEntries(
        this.cfg.targets.map((t) => [t.name, { schedule: t.schedule, jitterMs: t.jitterMs, timeoutMs: t.timeoutMs }]),
      ),
      targets: Object.fromEntries(this.status),
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

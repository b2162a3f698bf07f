import cron, { type ScheduledTask } from 'node-cron';
import type { ApiModel } from '../openapi/load.js';
import { READ_ONLY_ENDPOINTS, type ReadOnlyEndpoint } from '../openapi/types.js';
import { redact, redactValue } from '../redact.js';
import { bounded } from '../shared/bounded.js';
import type { ProbeConfig, ProbeTarget } from './config.js';
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
}

/**
 * The probe: probes the read-only endpoints of every target on a node-cron schedule, exports metrics and
 * keeps the last result of each probe. It cannot reach the write endpoint: its endpoints are typed
 * ReadOnlyEndpoint and probeEndpoint refuses anything else.
 */
export class Probe {
  readonly metrics: ProbeMetrics;
  readonly status = new Map<string, Record<string, StatusEntry>>();
  private task: ScheduledTask | undefined;
  private inFlight: Promise<ProbeResult[]> | undefined;
  private readonly newest = new Map<string, string>();
  readonly startedAt = new Date().toISOString();
  cycles = 0;

  constructor(
    private readonly api: ApiModel,
    private readonly cfg: ProbeConfig,
    private readonly log: LogLine = makeLogger(cfg.logFormat),
  ) {
    this.metrics = new ProbeMetrics(cfg.targets.map((t) => t.name));
  }

  /** One cycle: every target, saldo-user and history-transaksi at once, then cek-trx-id with a known ID. */
  cycle(): Promise<ProbeResult[]> {
    const run = (async () => {
      const perTarget = this.cfg.targets.map((t) => () => this.probeTarget(t));
      const results = (await bounded(perTarget, Math.max(1, Math.ceil(this.cfg.concurrency / 2)))).flat();
      this.cycles++;
      return results;
    })();
    this.inFlight = run;
    return run.finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
  }

  private async probeTarget(t: ProbeTarget): Promise<ProbeResult[]> {
    const opts = {
      method: this.cfg.method,
      timeoutMs: this.cfg.timeoutMs,
      bodyCap: this.cfg.bodyCap,
      historyLimit: this.cfg.historyLimit,
    };
    const first = await bounded(
      (['saldo-user', 'history-transaksi'] as const).map((e) => () => this.one(t, e, opts)),
      2,
    );
    const history = first[1];
    if (history?.newestTrxId) this.newest.set(t.name, history.newestTrxId);
    const trxId = t.trxId ?? this.newest.get(t.name);
    if (!trxId) {
      this.metrics.recordSkipped(t.name, 'cek-trx-id');
      this.setStatus(t.name, 'cek-trx-id', {
        success: false,
        httpStatus: 0,
        durationMs: 0,
        at: new Date().toISOString(),
        findings: [],
        drift: [],
        skipped: 'no transaction ID: none configured and history gave none',
      });
      return first;
    }
    return [...first, await this.one(t, 'cek-trx-id', { ...opts, trxId })];
  }

  private async one(
    t: ProbeTarget,
    endpoint: ReadOnlyEndpoint,
    opts: Parameters<typeof probeEndpoint>[3],
  ): Promise<ProbeResult> {
    const res = await probeEndpoint(this.api, t, endpoint, opts);
    this.metrics.record(res);
    this.setStatus(t.name, endpoint, {
      success: res.success,
      ...(res.reason ? { reason: res.reason } : {}),
      ...(res.message ? { message: redact(res.message) } : {}),
      httpStatus: res.httpStatus,
      durationMs: Math.round(res.totalMs * 10) / 10,
      at: new Date(res.at * 1000).toISOString(),
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

  /** Starts the schedule; overlapping and missed runs are counted, never stacked. */
  start(): void {
    this.task = cron.schedule(
      this.cfg.schedule,
      async () => {
        await this.cycle();
      },
      { name: 'h2h-probe', noOverlap: true },
    );
    this.task.on('execution:overlap', () => this.metrics.overlaps.inc());
    this.task.on('execution:missed', () => this.metrics.missed.inc());
    this.task.on('execution:failed', (ctx) =>
      this.log({ level: 'error', msg: 'probe cycle failed', detail: ctx.execution?.error?.message ?? '' }),
    );
  }

  /** Stops the schedule and waits for the cycle in flight, whose probes end by their own deadline. */
  async stop(): Promise<void> {
    if (this.task) {
      await this.task.stop();
      await this.task.destroy();
      this.task = undefined;
    }
    await this.inFlight?.catch(() => undefined);
  }

  statusJson(): Record<string, unknown> {
    return {
      startedAt: this.startedAt,
      schedule: this.cfg.schedule,
      cycles: this.cycles,
      endpoints: READ_ONLY_ENDPOINTS,
      targets: Object.fromEntries(this.status),
    };
  }
}

import { Mutex } from 'async-mutex';
import type { ApiModel } from '../openapi/load.js';
import type { ReadOnlyEndpoint } from '../openapi/types.js';
import { type PointValues, ReadingWindow, roundPoints } from '../reading/index.js';
import { NO_SCHEDULE, type ProbeConfig, type ProbeTarget } from './config.js';
import type { ExporterProbe } from './exporter.js';
import { type LogLine, makeLogger } from './log.js';
import { ProbeMetrics } from './metrics.js';
import { internalFailure, type ProbeResult, probeEndpoint } from './probe-endpoint.js';
import { Schedule } from './schedule.js';
import { StatusStore } from './status.js';

export { type LogLine, makeLogger } from './log.js';

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
  readonly status = new StatusStore();
  /** The provider's reading each target shows, steadied over its last rounds. */
  private readonly reading = new ReadingWindow();
  private readonly schedule: Schedule;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** One round per target at a time, whoever asks (the schedule, /probe, --once): the provider never sees two. */
  private readonly turns = new Map<string, Mutex>();
  /** /probe rounds under way, by target and endpoint: a scrape that asks the same shares it. */
  private readonly shared = new Map<string, Promise<ProbeResult[]>>();
  private readonly newest = new Map<string, string>();
  /** Rounds completed (one round: every probe of one target once). */
  rounds = 0;

  constructor(
    private readonly api: ApiModel,
    private readonly cfg: ProbeConfig,
    private readonly log: LogLine = makeLogger(cfg.logFormat),
  ) {
    this.metrics = new ProbeMetrics(this.scheduled());
    this.schedule = new Schedule(this.metrics, this.log, (t) =>
      this.track(this.exclusive(t.name, () => this.round(t))),
    );
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

  readingOf(name: string): PointValues {
    return this.reading.of(name);
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
    // However many scrapers ask at once, the provider sees one round: the same question shares the round in
    // flight, another waits for its turn.
    const key = `${name}\u0000${endpoint ?? ''}`;
    const under = this.shared.get(key);
    if (under) return under;
    const round = this.track(
      this.exclusive(name, () =>
        this.round(t, {
          lookupAfterHistory: true,
          timeoutMs: deadlineMs,
          sink: 'status',
          ...(endpoint ? { only: endpoint } : {}),
        }),
      ),
    ).finally(() => this.shared.delete(key));
    this.shared.set(key, round);
    return round;
  }

  /** Runs `fn` when no other round of the target is under way. */
  private exclusive<T>(target: string, fn: () => Promise<T>): Promise<T> {
    let turn = this.turns.get(target);
    if (!turn) {
      turn = new Mutex();
      this.turns.set(target, turn);
    }
    return turn.runExclusive(fn);
  }

  /**
   * Every target probed once, all at once (`h2h probe --once`). With no transaction known yet, cek-trx-id
   * waits for history's newest: no schedule has to be kept here.
   */
  async roundAll(): Promise<ProbeResult[]> {
    return (
      await Promise.all(
        this.cfg.targets.map((t) =>
          this.track(this.exclusive(t.name, () => this.round(t, { lookupAfterHistory: true }))),
        ),
      )
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
    try {
      const results = (await Promise.all(probes)).filter((r): r is ProbeResult => r !== undefined);
      if (sink !== 'none') {
        try {
          const shown = this.reading.observe(t.name, roundPoints(results.map((r) => r.reading)));
          if (sink === 'metrics') this.metrics.recordReading(t.name, shown);
        } catch (err) {
          this.log({ level: 'error', msg: 'reading the round failed', target: t.name, detail: (err as Error).message });
        }
      }
      return results;
    } finally {
      // Whatever happened inside it, a round is counted: /status and /healthz never stand still.
      this.rounds++;
    }
  }

  private skipLookup(
    t: ProbeTarget,
    sink: Sink,
    why = 'no transaction ID yet: none configured and no earlier history showed one',
  ): undefined {
    if (sink === 'metrics') this.metrics.recordSkipped(t.name, 'cek-trx-id');
    if (sink !== 'none') this.status.skipped(t.name, 'cek-trx-id', why);
    return undefined;
  }

  private async one(t: ProbeTarget, endpoint: ReadOnlyEndpoint, opts: ProbeOpts, sink: Sink): Promise<ProbeResult> {
    let res: ProbeResult;
    try {
      res = await probeEndpoint(this.api, t, endpoint, opts);
    } catch (err) {
      // Never a gap in the metrics: success 0 with its reason, counted in runs and failures, shown in /status.
      res = internalFailure(t.name, endpoint, err);
    }
    if (sink === 'none') return res;
    if (sink === 'metrics') this.metrics.record(res);
    this.status.record(t.name, res);
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

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  /** Starts one schedule per target (schedule.ts). */
  start(): void {
    this.schedule.start(this.scheduled());
  }

  /** Stops every schedule and waits for the rounds in flight, whose probes end by their own deadline. */
  async stop(): Promise<void> {
    await this.schedule.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  statusJson(): Record<string, unknown> {
    return this.status.json(this.rounds, this.cfg.targets);
  }
}

import type { ApiModel } from '../openapi/load.js';
import type { ReadOnlyEndpoint } from '../openapi/types.js';
import { type ReadingWindow, roundPoints } from '../reading/index.js';
import type { ProbeConfig, ProbeTarget } from './config.js';
import type { LogLine } from './log.js';
import type { ProbeMetrics } from './metrics.js';
import { internalFailure, type ProbeResult, probeEndpoint } from './probe-endpoint.js';
import type { StatusStore } from './status.js';

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

/** What a round's results go to: the process's metrics, /status, the log, the reading each target shows. */
export interface RoundOutlets {
  metrics: ProbeMetrics;
  status: StatusStore;
  log: LogLine;
  reading: ReadingWindow;
}

/**
 * The rounds of the probe's targets: each round's probes, the lookup of a transaction an earlier history showed,
 * and where each result goes. Whoever asks for a round (the schedule, /probe, --once) runs it here.
 */
export class RoundRunner {
  /** The newest transaction each target's history showed: what its next lookup looks up. */
  private readonly newest = new Map<string, string>();
  /** Rounds completed (one round: every probe of one target once). */
  completed = 0;

  constructor(
    private readonly api: ApiModel,
    private readonly cfg: ProbeConfig,
    private readonly out: RoundOutlets,
  ) {}

  /**
   * One round of one target. Its three probes run at once, so the round ends within one deadline and fits the
   * interval (the config is refused otherwise); cek-trx-id looks up the configured transaction or the newest
   * that an earlier round's history showed, and is skipped (counted, with the reason in /status) while none is
   * known, unless `lookupAfterHistory`.
   */
  async run(t: ProbeTarget, mode: RoundMode = {}): Promise<ProbeResult[]> {
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
          const shown = this.out.reading.observe(t.name, roundPoints(results.map((r) => r.reading)));
          if (sink === 'metrics') this.out.metrics.recordReading(t.name, shown);
        } catch (err) {
          this.out.log({
            level: 'error',
            msg: 'reading the round failed',
            target: t.name,
            detail: (err as Error).message,
          });
        }
      }
      return results;
    } finally {
      // Whatever happened inside it, a round is counted: /status and /healthz never stand still.
      this.completed++;
    }
  }

  private skipLookup(
    t: ProbeTarget,
    sink: Sink,
    why = 'no transaction ID yet: none configured and no earlier history showed one',
  ): undefined {
    if (sink === 'metrics') this.out.metrics.recordSkipped(t.name, 'cek-trx-id');
    if (sink !== 'none') this.out.status.skipped(t.name, 'cek-trx-id', why);
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
    if (sink === 'metrics') this.out.metrics.record(res);
    this.out.status.record(t.name, res);
    if (!res.success) {
      this.out.log({
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
}

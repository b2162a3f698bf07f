import { Mutex } from 'async-mutex';
import type { ApiModel } from '../openapi/load.js';
import type { ReadOnlyEndpoint } from '../openapi/types.js';
import { type PointValues, ReadingWindow } from '../reading/index.js';
import { NO_SCHEDULE, type ProbeConfig, type ProbeTarget } from './config.js';
import type { ExporterProbe } from './exporter.js';
import { type LogLine, makeLogger } from './log.js';
import { ProbeMetrics } from './metrics.js';
import type { ProbeResult } from './probe-endpoint.js';
import { RoundRunner } from './round.js';
import { Schedule } from './schedule.js';
import { StatusStore } from './status.js';

export { type LogLine, makeLogger } from './log.js';

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
  private readonly runner: RoundRunner;

  constructor(
    api: ApiModel,
    private readonly cfg: ProbeConfig,
    log: LogLine = makeLogger(cfg.logFormat),
  ) {
    this.metrics = new ProbeMetrics(this.scheduled());
    this.runner = new RoundRunner(api, cfg, { metrics: this.metrics, status: this.status, log, reading: this.reading });
    this.schedule = new Schedule(this.metrics, log, (t) =>
      this.track(this.exclusive(t.name, () => this.runner.run(t))),
    );
  }

  /** The targets on a schedule of their own; the others are probed only when scraped at /probe. */
  private scheduled(): ProbeTarget[] {
    return this.cfg.targets.filter((t) => t.schedule !== NO_SCHEDULE);
  }

  /** Rounds completed (one round: every probe of one target once). */
  get rounds(): number {
    return this.runner.completed;
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
        this.runner.run(t, {
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
          this.track(this.exclusive(t.name, () => this.runner.run(t, { lookupAfterHistory: true }))),
        ),
      )
    ).flat();
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

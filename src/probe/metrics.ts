import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CLAUSE_IDS, READ_ONLY_ENDPOINTS } from '../openapi/types.js';
import type { PointValues } from '../reading/index.js';
import { PROBE_REASONS, type ProbeResult } from './probe-endpoint.js';

/**
 * Bucket edges of h2h_probe_duration_seconds. They include the alert thresholds of monitoring/alerts.yml
 * (p95 over 2 s warns, over 5 s pages), so histogram_quantile is exact at them.
 */
export const DURATION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/** Default metrics that promtool flags (gauges named `_total`); left out of the exposition. */
const PROMTOOL_FLAGGED = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** The provider's reading as the probe sees it: the same name and meaning in the scheduled and exporter modes. */
export const READING_INFO = {
  name: 'h2h_provider_reading_info',
  help: "The provider's reading of an open point the probe's read-only answers show (1 for the value shown now; a value replaces another when seen in more than half of the target's last 10 rounds).",
} as const;

/** The `phase` label of each measured phase of a probe. */
export const PHASES = { dns: 'dns', connect: 'connect', tls: 'tls', firstByte: 'first_byte', body: 'body' } as const;

/** The outcomes of a /probe request. */
export const EXPORTER_OUTCOMES = ['probed', 'bad_request', 'error'] as const;
export type ExporterOutcome = (typeof EXPORTER_OUTCOMES)[number];

/** What the metrics need to know of a target. */
export interface MetricsTarget {
  name: string;
  timeoutMs: number;
}

/** The labels of most series. */
const TE = ['target', 'endpoint'] as const;

/** Metrics of one family, registered in the probe's registry. */
class MetricFamily {
  constructor(protected readonly registry: Registry) {}
}

/** What each probe found: its outcome, HTTP status, phases and duration, why it failed, what it found broken. */
class ResultMetrics extends MetricFamily {
  private readonly success = new Gauge({
    name: 'h2h_probe_success',
    help: 'Whether the last probe succeeded (1) or failed (0).',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly httpStatus = new Gauge({
    name: 'h2h_probe_http_status_code',
    help: 'HTTP status of the last probe; 0 when no answer came.',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly phase = new Gauge({
    name: 'h2h_probe_phase_duration_seconds',
    help: 'Duration of each phase of the last probe (dns, connect, tls, first_byte, body), from socket events.',
    labelNames: [...TE, 'phase'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'h2h_probe_duration_seconds',
    help: 'Duration of probes, whole request.',
    labelNames: TE,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly runs = new Counter({
    name: 'h2h_probe_runs_total',
    help: 'Probes run.',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly failures = new Counter({
    name: 'h2h_probe_failures_total',
    help: 'Failed probes, by reason.',
    labelNames: [...TE, 'reason'],
    registers: [this.registry],
  });
  private readonly violations = new Counter({
    name: 'h2h_probe_contract_violations_total',
    help: 'Contract clause violations found in answers, by clause id.',
    labelNames: [...TE, 'clause'],
    registers: [this.registry],
  });
  private readonly drift = new Counter({
    name: 'h2h_probe_drift_total',
    help: 'Fields and status values not named by openapi.yaml, seen in answers.',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly skipped = new Counter({
    name: 'h2h_probe_skipped_total',
    help: 'Probes not run (cek-trx-id without a known transaction).',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly lastRun = new Gauge({
    name: 'h2h_probe_last_run_timestamp_seconds',
    help: 'When the last probe ran (Unix time).',
    labelNames: TE,
    registers: [this.registry],
  });
  private readonly lastSuccess = new Gauge({
    name: 'h2h_probe_last_success_timestamp_seconds',
    help: 'When the last successful probe ran (Unix time).',
    labelNames: TE,
    registers: [this.registry],
  });

  /** Every series of a target exists from the start, so rate() and absent() work before the first failure. */
  zero(target: string): void {
    for (const endpoint of READ_ONLY_ENDPOINTS) {
      const l = { target, endpoint };
      this.runs.inc(l, 0);
      this.drift.inc(l, 0);
      this.skipped.inc(l, 0);
      for (const reason of PROBE_REASONS) this.failures.inc({ ...l, reason }, 0);
      for (const clause of CLAUSE_IDS) this.violations.inc({ ...l, clause }, 0);
    }
  }

  record(res: ProbeResult): void {
    const l = { target: res.target, endpoint: res.endpoint };
    this.runs.inc(l);
    this.success.set(l, res.success ? 1 : 0);
    this.httpStatus.set(l, res.httpStatus);
    for (const [key, phase] of Object.entries(PHASES))
      this.phase.set({ ...l, phase }, res.phases[key as keyof typeof PHASES] / 1000);
    this.duration.observe(l, res.totalMs / 1000);
    this.lastRun.set(l, res.at);
    if (res.success) this.lastSuccess.set(l, res.at);
    else if (res.reason) this.failures.inc({ ...l, reason: res.reason });
    for (const f of res.findings) this.violations.inc({ ...l, clause: f.clause });
    if (res.drift.length) this.drift.inc(l, res.drift.length);
  }

  recordSkipped(target: string, endpoint: string): void {
    this.skipped.inc({ target, endpoint });
  }
}

/** What a target shows of itself besides its answers' judgement: its balance, its certificate, its reading. */
class ShownMetrics extends MetricFamily {
  private readonly balance = new Gauge({
    name: 'h2h_balance',
    help: 'The saldo of the last saldo-user probe; absent when that probe read none (currency unit not shown by the provider).',
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly balanceAt = new Gauge({
    name: 'h2h_balance_timestamp_seconds',
    help: 'When h2h_balance was last read fresh (Unix time).',
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly certExpiry = new Gauge({
    name: 'h2h_probe_tls_cert_expiry_timestamp_seconds',
    help: 'The earliest notAfter of the certificate chain the last HTTPS probe was shown (Unix time), also when it did not verify.',
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly tlsVersion = new Gauge({
    name: 'h2h_probe_tls_version_info',
    help: 'The TLS version of the last HTTPS probe (1 for that version).',
    labelNames: ['target', 'version'],
    registers: [this.registry],
  });
  private readonly tlsVersions = new Map<string, string>();
  private readonly reading = new Gauge({
    name: READING_INFO.name,
    help: READING_INFO.help,
    labelNames: ['target', 'point', 'value'],
    registers: [this.registry],
  });
  private readonly readingShown = new Map<string, PointValues>();

  record(res: ProbeResult): void {
    const target = { target: res.target };
    if (res.endpoint === 'saldo-user') {
      // Only a fresh read is a balance: after a failed one the series is gone and its timestamp ages.
      if (res.saldo !== undefined) {
        this.balance.set(target, res.saldo);
        this.balanceAt.set(target, res.at);
      } else this.balance.remove(target);
    }
    if (res.tls) {
      if (res.tls.certExpiry !== undefined) this.certExpiry.set(target, res.tls.certExpiry);
      else this.certExpiry.remove(target);
      const before = this.tlsVersions.get(res.target);
      if (before !== undefined && before !== res.tls.version) this.tlsVersion.remove({ ...target, version: before });
      this.tlsVersions.set(res.target, res.tls.version);
      this.tlsVersion.set({ ...target, version: res.tls.version }, 1);
    }
  }

  /** The reading the target shows now (src/reading/): one series per point, its old value's series removed. */
  recordReading(target: string, shown: PointValues): void {
    const before = this.readingShown.get(target) ?? {};
    for (const [point, value] of Object.entries(shown)) {
      const old = before[point as keyof PointValues];
      if (old !== undefined && old !== value) this.reading.remove({ target, point, value: old });
      this.reading.set({ target, point, value }, 1);
    }
    this.readingShown.set(target, { ...shown });
  }
}

/** How each target's rounds keep their schedule: its deadline, how late its rounds start, the rounds it lost. */
class ScheduleMetrics extends MetricFamily {
  /** Each target's deadline, set once. */
  private readonly timeout = new Gauge({
    name: 'h2h_probe_timeout_seconds',
    help: 'The deadline of each probe of the target: a duration near it says the timing is cut, not measured.',
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly lateness = new Gauge({
    name: 'h2h_probe_schedule_lateness_seconds',
    help: "How late the target's last scheduled round started, after its slot plus its jitter.",
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly overlaps = new Counter({
    name: 'h2h_probe_overlaps_total',
    help: 'Scheduled rounds of the target skipped because its previous one was still running.',
    labelNames: ['target'],
    registers: [this.registry],
  });
  private readonly missed = new Counter({
    name: 'h2h_probe_missed_total',
    help: 'Scheduled rounds of the target that did not start in time (the process was busy or asleep).',
    labelNames: ['target'],
    registers: [this.registry],
  });

  zero(target: string, timeoutMs: number): void {
    this.timeout.set({ target }, timeoutMs / 1000);
    this.overlaps.inc({ target }, 0);
    this.missed.inc({ target }, 0);
  }

  recordLateness(target: string, seconds: number): void {
    this.lateness.set({ target }, seconds);
  }

  recordOverlap(target: string): void {
    this.overlaps.inc({ target });
  }

  recordMissed(target: string): void {
    this.missed.inc({ target });
  }
}

/**
 * The probe's metrics, in a registry of its own, by family. Labels are `target` (a configured name), `endpoint`,
 * `reason`, `clause`, `phase` and `version` (TLS): never a URL, a key, a phone number or a transaction ID.
 * Event-loop delay, which bounds how far any timing can be trusted, is prom-client's own
 * `nodejs_eventloop_lag_*` (reset at every scrape, so it covers the time since the last one).
 */
export class ProbeMetrics {
  readonly registry = new Registry();
  private readonly results = new ResultMetrics(this.registry);
  private readonly shown = new ShownMetrics(this.registry);
  private readonly schedule = new ScheduleMetrics(this.registry);
  private readonly exporterRequests = new Counter({
    name: 'h2h_probe_exporter_requests_total',
    help: 'Requests to /probe (the exporter mode), by outcome: probed, bad_request (unknown name or parameter), error.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor(targets: readonly MetricsTarget[], opts: { processMetrics?: boolean } = {}) {
    for (const outcome of EXPORTER_OUTCOMES) this.exporterRequests.inc({ outcome }, 0);
    if (opts.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of PROMTOOL_FLAGGED) this.registry.removeSingleMetric(name);
    }
    for (const { name: target, timeoutMs } of targets) {
      this.schedule.zero(target, timeoutMs);
      this.results.zero(target);
    }
  }

  record(res: ProbeResult): void {
    this.results.record(res);
    this.shown.record(res);
  }

  /** The reading the target shows now (src/reading/): one series per point, its old value's series removed. */
  recordReading(target: string, shown: PointValues): void {
    this.shown.recordReading(target, shown);
  }

  recordSkipped(target: string, endpoint: string): void {
    this.results.recordSkipped(target, endpoint);
  }

  recordLateness(target: string, seconds: number): void {
    this.schedule.recordLateness(target, seconds);
  }

  recordOverlap(target: string): void {
    this.schedule.recordOverlap(target);
  }

  recordMissed(target: string): void {
    this.schedule.recordMissed(target);
  }

  recordExporterRequest(outcome: ExporterOutcome): void {
    this.exporterRequests.inc({ outcome });
  }

  /**
   * The exposition, in the Prometheus text format whatever the scraper's Accept header says: Prometheus reads it,
   * and prom-client's OpenMetrics writer renames counters in place (a private side effect this code will not
   * lean on).
   */
  async exposition(_accept?: string): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

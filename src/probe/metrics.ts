import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CLAUSE_IDS, READ_ONLY_ENDPOINTS } from '../openapi/types.js';
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

/** The `phase` label of each measured phase of a probe. */
export const PHASES = { connect: 'connect', tls: 'tls', firstByte: 'first_byte', body: 'body' } as const;

/**
 * The probe's metrics, in a registry of its own. Labels are `target` (a configured name), `endpoint`,
 * `reason`, `clause` and `phase`: never a URL, a key, a phone number or a transaction ID.
 */
export class ProbeMetrics {
  readonly registry = new Registry();
  private readonly success: Gauge<'target' | 'endpoint'>;
  private readonly httpStatus: Gauge<'target' | 'endpoint'>;
  private readonly phase: Gauge<'target' | 'endpoint' | 'phase'>;
  private readonly duration: Histogram<'target' | 'endpoint'>;
  private readonly runs: Counter<'target' | 'endpoint'>;
  private readonly failures: Counter<'target' | 'endpoint' | 'reason'>;
  private readonly violations: Counter<'target' | 'endpoint' | 'clause'>;
  private readonly drift: Counter<'target' | 'endpoint'>;
  private readonly skipped: Counter<'target' | 'endpoint'>;
  private readonly lastRun: Gauge<'target' | 'endpoint'>;
  private readonly lastSuccess: Gauge<'target' | 'endpoint'>;
  private readonly balance: Gauge<'target'>;
  readonly overlaps: Counter;
  readonly missed: Counter;

  constructor(targets: readonly string[]) {
    const r = [this.registry];
    const te = ['target', 'endpoint'] as const;
    this.success = new Gauge({
      name: 'h2h_probe_success',
      help: 'Whether the last probe succeeded (1) or failed (0).',
      labelNames: te,
      registers: r,
    });
    this.httpStatus = new Gauge({
      name: 'h2h_probe_http_status_code',
      help: 'HTTP status of the last probe; 0 when no answer came.',
      labelNames: te,
      registers: r,
    });
    this.phase = new Gauge({
      name: 'h2h_probe_phase_duration_seconds',
      help: 'Duration of each phase of the last probe (connect, tls, first_byte, body).',
      labelNames: [...te, 'phase'],
      registers: r,
    });
    this.duration = new Histogram({
      name: 'h2h_probe_duration_seconds',
      help: 'Duration of probes, whole request.',
      labelNames: te,
      buckets: DURATION_BUCKETS,
      registers: r,
    });
    this.runs = new Counter({ name: 'h2h_probe_runs_total', help: 'Probes run.', labelNames: te, registers: r });
    this.failures = new Counter({
      name: 'h2h_probe_failures_total',
      help: 'Failed probes, by reason.',
      labelNames: [...te, 'reason'],
      registers: r,
    });
    this.violations = new Counter({
      name: 'h2h_probe_contract_violations_total',
      help: 'Contract clause violations found in answers, by clause id.',
      labelNames: [...te, 'clause'],
      registers: r,
    });
    this.drift = new Counter({
      name: 'h2h_probe_drift_total',
      help: 'Fields and status values not named by openapi.yaml, seen in answers.',
      labelNames: te,
      registers: r,
    });
    this.skipped = new Counter({
      name: 'h2h_probe_skipped_total',
      help: 'Probes not run (cek-trx-id without a known transaction).',
      labelNames: te,
      registers: r,
    });
    this.lastRun = new Gauge({
      name: 'h2h_probe_last_run_timestamp_seconds',
      help: 'When the last probe ran (Unix time).',
      labelNames: te,
      registers: r,
    });
    this.lastSuccess = new Gauge({
      name: 'h2h_probe_last_success_timestamp_seconds',
      help: 'When the last successful probe ran (Unix time).',
      labelNames: te,
      registers: r,
    });
    this.balance = new Gauge({
      name: 'h2h_balance',
      help: 'The last saldo read from saldo-user (currency unit not shown by the provider).',
      labelNames: ['target'],
      registers: r,
    });
    this.overlaps = new Counter({
      name: 'h2h_probe_overlaps_total',
      help: 'Scheduled cycles skipped because the previous one was still running.',
      registers: r,
    });
    this.missed = new Counter({
      name: 'h2h_probe_missed_total',
      help: 'Scheduled cycles that started too late (the process was busy or asleep).',
      registers: r,
    });
    collectDefaultMetrics({ register: this.registry });
    for (const name of PROMTOOL_FLAGGED) this.registry.removeSingleMetric(name);
    // Every series exists from the start, so rate() and absent() work before the first failure.
    for (const target of targets) {
      for (const endpoint of READ_ONLY_ENDPOINTS) {
        const l = { target, endpoint };
        this.runs.inc(l, 0);
        this.drift.inc(l, 0);
        this.skipped.inc(l, 0);
        for (const reason of PROBE_REASONS) this.failures.inc({ ...l, reason }, 0);
        for (const clause of CLAUSE_IDS) this.violations.inc({ ...l, clause }, 0);
      }
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
    if (res.saldo !== undefined) this.balance.set({ target: res.target }, res.saldo);
  }

  recordSkipped(target: string, endpoint: string): void {
    this.skipped.inc({ target, endpoint });
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * The exposition in the format the scraper asked for: OpenMetrics when its Accept header names it.
   * Scrapes run one at a time: prom-client's OpenMetrics writer renames counters in place (it drops
   * `_total`) and never renames them back, so each OpenMetrics scrape restores the names before the next.
   */
  exposition(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const run = this.queue.then(() => this.serialize(accept));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async serialize(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    if (!accept?.includes('application/openmetrics-text')) {
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    }
    const metrics = this.registry.getMetricsAsArray() as unknown as { name: string }[];
    const names = metrics.map((m) => m.name);
    try {
      // A view over the same metric objects, serialized as OpenMetrics.
      const om = Registry.merge([this.registry]) as unknown as Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>;
      om.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
      return { contentType: om.contentType, body: await om.metrics() };
    } finally {
      metrics.forEach((m, i) => {
        m.name = names[i] ?? m.name;
      });
    }
  }
}

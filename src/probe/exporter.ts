import { Gauge, Registry } from 'prom-client';
import { findingDetail } from '../checks/util.js';
import { READ_ONLY_ENDPOINTS, type ReadOnlyEndpoint } from '../openapi/types.js';
import type { PointValues } from '../reading/index.js';
import { redact, redactValue } from '../redact.js';
import { type ExporterOutcome, PHASES, READING_INFO } from './metrics.js';
import type { ProbeResult } from './probe-endpoint.js';

/** The deadline when the scraper sends no timeout header (Prometheus always does). */
const NO_HEADER_DEADLINE_MS = 10_000;
/** Query parameters /probe knows; anything else (a key above all) is refused. `module` is what the Prometheus
 * Operator's Probe adds when one is set; it is accepted and ignored. */
const PARAMS = new Set(['target', 'endpoint', 'debug', 'module']);
/** Body characters shown per exchange in debug output. */
const DEBUG_BODY_CHARS = 2000;

/** What the exporter needs of the probe: the target names and a round of one of them within a deadline. */
export interface ExporterProbe {
  targetNames(): string[];
  timeoutOf(target: string): number;
  roundNow(target: string, endpoint: ReadOnlyEndpoint | undefined, deadlineMs: number): Promise<ProbeResult[]>;
  /** The provider's reading the target shows, over its rounds so far (this one included). */
  readingOf(target: string): PointValues;
}

export interface ExporterAnswer {
  status: number;
  contentType: string;
  body: string;
  /** For the probe's own counter of /probe requests. */
  outcome: ExporterOutcome;
}

/**
 * The deadline of one /probe request: Prometheus' `X-Prometheus-Scrape-Timeout-Seconds` minus the offset,
 * capped by the target's own timeout; the target's timeout when no header came.
 */
export function deadlineFor(header: string | undefined, offsetMs: number, targetTimeoutMs: number): number {
  const seconds = header === undefined ? Number.NaN : Number(header);
  if (!Number.isFinite(seconds) || seconds <= 0) return Math.min(targetTimeoutMs, NO_HEADER_DEADLINE_MS);
  return Math.max(1, Math.min(targetTimeoutMs, Math.round(seconds * 1000 - offsetMs)));
}

/**
 * `GET /probe?target=NAME[&endpoint=E][&debug=true]`, as blackbox_exporter's multi-target pattern: Prometheus
 * owns the schedule and the timeout, the probe runs a round of the named target now and answers with the metrics of
 * that round alone, from a registry made for this request. The key is the configured target's; a name that
 * is not configured, an endpoint that is not read-only, or any parameter that is not known gets 400.
 */
export async function answerProbe(
  probe: ExporterProbe,
  query: URLSearchParams,
  timeoutHeader: string | undefined,
  offsetMs: number,
): Promise<ExporterAnswer> {
  const bad = (message: string): ExporterAnswer => ({
    status: 400,
    contentType: 'text/plain; charset=utf-8',
    body: `${message}\n`,
    outcome: 'bad_request',
  });
  const names = probe.targetNames();
  const unknown = [...query.keys()].filter((k) => !PARAMS.has(k));
  if (unknown.length)
    return bad(
      `unknown parameter(s) ${unknown.map((k) => `'${redact(k)}'`).join(', ')}: /probe takes target, endpoint and debug; keys come from the config, never from the URL`,
    );
  const target = query.get('target');
  if (!target || !names.includes(target))
    return bad(
      `${target ? `unknown target '${redact(target)}'` : 'target is missing'}: the configured targets are ${names.join(', ') || '(none)'}`,
    );
  const endpointRaw = query.get('endpoint');
  if (endpointRaw !== null && !(READ_ONLY_ENDPOINTS as readonly string[]).includes(endpointRaw))
    return bad(`unknown endpoint '${redact(endpointRaw)}': /probe probes ${READ_ONLY_ENDPOINTS.join(', ')}`);
  const endpoint = (endpointRaw ?? undefined) as ReadOnlyEndpoint | undefined;
  const debug = query.get('debug') === 'true';
  const deadlineMs = deadlineFor(timeoutHeader, offsetMs, probe.timeoutOf(target));
  const results = await probe.roundNow(target, endpoint, deadlineMs);
  const registry = roundRegistry(target, deadlineMs, results, probe.readingOf(target));
  const metrics = await registry.metrics();
  return {
    status: 200,
    contentType: debug ? 'text/plain; charset=utf-8' : registry.contentType,
    body: debug ? `${debugComments(results)}${metrics}` : metrics,
    outcome: 'probed',
  };
}

/**
 * The metrics of one round, in a registry of its own: gauges only, as a round has no history here
 * (Prometheus keeps it). Names are those of the scheduled mode where they mean the same, so the alert
 * rules read both; what is a counter there is the count of this round here.
 */
function roundRegistry(target: string, deadlineMs: number, results: ProbeResult[], reading: PointValues): Registry {
  const registry = new Registry();
  const registers = [registry];
  const te = ['target', 'endpoint'] as const;
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const success = gauge('h2h_probe_success', 'Whether the probe succeeded (1) or failed (0).', te);
  const status = gauge('h2h_probe_http_status_code', 'HTTP status of the probe; 0 when no answer came.', te);
  const phase = gauge(
    'h2h_probe_phase_duration_seconds',
    'Duration of each phase of the probe (dns, connect, tls, first_byte, body), from socket events.',
    [...te, 'phase'],
  );
  const duration = gauge('h2h_probe_last_duration_seconds', 'Duration of the probe, whole request.', te);
  const failure = gauge('h2h_probe_failure', 'Why the probe failed: 1 for its reason.', [...te, 'reason']);
  const violations = gauge(
    'h2h_probe_contract_violations',
    'Contract clause violations found in the answer, by clause id (clauses with none are not listed).',
    [...te, 'clause'],
  );
  const drift = gauge('h2h_probe_drift', 'Fields and status values not named by openapi.yaml, in the answer.', te);
  const balance = gauge('h2h_balance', 'The saldo saldo-user read; absent when it read none.', ['target']);
  const balanceAt = gauge('h2h_balance_timestamp_seconds', 'When h2h_balance was read (Unix time).', ['target']);
  const expiry = gauge(
    'h2h_probe_tls_cert_expiry_timestamp_seconds',
    'The earliest notAfter of the certificate chain shown (Unix time), also when it did not verify.',
    ['target'],
  );
  const version = gauge('h2h_probe_tls_version_info', 'The TLS version of the handshake (1).', ['target', 'version']);
  gauge('h2h_probe_timeout_seconds', 'The deadline of each probe of this round.', ['target']).set(
    { target },
    deadlineMs / 1000,
  );
  const info = gauge(READING_INFO.name, READING_INFO.help, ['target', 'point', 'value']);
  for (const [point, value] of Object.entries(reading)) info.set({ target, point, value }, 1);
  for (const r of results) {
    const l = { target, endpoint: r.endpoint };
    success.set(l, r.success ? 1 : 0);
    status.set(l, r.httpStatus);
    for (const [key, name] of Object.entries(PHASES))
      phase.set({ ...l, phase: name }, r.phases[key as keyof typeof PHASES] / 1000);
    duration.set(l, r.totalMs / 1000);
    if (r.reason) failure.set({ ...l, reason: r.reason }, 1);
    const byClause = new Map<string, number>();
    for (const f of r.findings) byClause.set(f.clause, (byClause.get(f.clause) ?? 0) + 1);
    for (const [clause, n] of byClause) violations.set({ ...l, clause }, n);
    drift.set(l, r.drift.length);
    if (r.saldo !== undefined) {
      balance.set({ target }, r.saldo);
      balanceAt.set({ target }, r.at);
    }
    if (r.tls) {
      if (r.tls.certExpiry !== undefined) expiry.set({ target }, r.tls.certExpiry);
      version.set({ target, version: r.tls.version }, 1);
    }
  }
  return registry;
}

/** `&debug=true`: each exchange as comment lines before the metrics, redacted like every other output. */
function debugComments(results: ProbeResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(
      `${r.endpoint}: ${r.success ? 'success' : `FAILED ${r.reason}: ${r.message ?? ''}`} in ${r.totalMs.toFixed(1)} ms`,
    );
    const ex = r.exchange;
    if (ex) {
      lines.push(`  request: ${ex.method} ${ex.url}`, `  params: ${JSON.stringify(redactValue(ex.params))}`);
      lines.push(`  response: HTTP ${ex.httpStatus} ${ex.contentType}`);
      const body = ex.bodyText.length > DEBUG_BODY_CHARS ? `${ex.bodyText.slice(0, DEBUG_BODY_CHARS)}…` : ex.bodyText;
      lines.push(`  body: ${body.replace(/\s*\n\s*/g, ' ')}`);
    }
    for (const f of r.findings) lines.push(`  finding: ${f.clause} ${findingDetail(f)}`);
  }
  return `${lines.map((l) => `# ${redact(l)}`).join('\n')}\n`;
}

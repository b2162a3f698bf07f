import { judgeAnswer } from '../checks/judge.js';
import { findingDetail } from '../checks/util.js';
import { type CallResult, callApi, type Phases, type TlsInfo } from '../client/client.js';
import { isRateLimit, TRANSPORT_REASONS } from '../client/transport.js';
import { bodyOf, calledUrl } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import {
  type Drift,
  type Exchange,
  type Finding,
  type Method,
  READ_ONLY_ENDPOINTS,
  type ReadOnlyEndpoint,
} from '../openapi/types.js';
import { answerPoints, type PointValues } from '../reading/index.js';
import type { ProbeTarget } from './config.js';

/**
 * Why a probe failed: a bounded set, so it can be a metric label. The transport reasons are the client's own
 * (dns, connect, tls, reset, timeout, body_too_large); the rest are about the answer. `rate_limited` (429, or 503
 * with Retry-After) says the target turned the probe away, not that it broke its contract. An answer in the
 * envelope with `ok` false is `server_error` under a 5xx (an outage said in the API's own words: maintenance, a
 * backend down) and `refused` under any other status (the key, a parameter): the two call for different people.
 * `internal`: the probe itself failed on what came back (a bug of the toolkit): still a failed probe, counted, never
 * a blind one.
 */
export const PROBE_REASONS = [
  ...TRANSPORT_REASONS,
  'rate_limited',
  'http_status',
  'content_type',
  'json_parse',
  'envelope',
  'schema',
  'refused',
  'server_error',
  'clause',
  'internal',
] as const;
export type ProbeReason = (typeof PROBE_REASONS)[number];

export interface ProbeOptions {
  method: Method;
  timeoutMs: number;
  bodyCap: number;
  historyLimit: number;
  /** For cek-trx-id: the transaction to look up. */
  trxId?: string;
}

export interface ProbeResult {
  target: string;
  endpoint: ReadOnlyEndpoint;
  /** Unix seconds when the probe started. */
  at: number;
  success: boolean;
  reason?: ProbeReason;
  /** One line on why it failed (redacted before any output). */
  message?: string;
  /** 0 when no answer came. */
  httpStatus: number;
  phases: Phases;
  totalMs: number;
  findings: Finding[];
  drift: Drift[];
  /** saldo-user: the balance read. */
  saldo?: number;
  /** history-transaksi: the newest transaction's ID, for cek-trx-id. */
  newestTrxId?: string;
  /** HTTPS: what the handshake showed, also when the certificate did not verify. */
  tls?: TlsInfo;
  /** The request and answer, for `/probe?debug=true` (holds the key: redact before output). */
  exchange?: Exchange;
  /** What the answer shows of the provider's reading (src/reading/probe-points.ts). */
  reading?: PointValues;
}

function paramsFor(endpoint: ReadOnlyEndpoint, apiKey: string, opts: ProbeOptions): Record<string, unknown> {
  switch (endpoint) {
    case 'saldo-user':
      return { api_key: apiKey };
    case 'history-transaksi':
      return { api_key: apiKey, limit: opts.historyLimit };
    case 'cek-trx-id':
      return { api_key: apiKey, trx_id: opts.trxId };
  }
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/** Classifies a call into success or one bounded reason, with the clause findings and drift of its answer. */
export function classify(
  api: ApiModel,
  endpoint: ReadOnlyEndpoint,
  r: CallResult,
): Pick<ProbeResult, 'success' | 'reason' | 'message' | 'findings' | 'drift'> {
  const none = { findings: [] as Finding[], drift: [] as Drift[] };
  const fail = (reason: ProbeReason, message: string) => ({ success: false, reason, message, ...none });
  if (r.error) {
    return fail(r.error.reason, r.error.message);
  }
  const ex = r.exchange;
  if (!ex) return fail('reset', 'no answer');
  const status = ex.httpStatus;
  if (isRateLimit(ex)) {
    const after = ex.headers?.['retry-after'];
    return fail('rate_limited', `HTTP ${status}${after ? `, Retry-After ${after}` : ''}`);
  }
  if (status >= 300 && status < 400) return fail('http_status', `HTTP ${status} redirect (not followed)`);
  // saldo-user and history-transaksi look nothing up: a 404 says the endpoint is not there (a wrong base URL), never
  // that the key was refused.
  if (status === 404 && endpoint !== 'cek-trx-id')
    return fail('http_status', `HTTP 404: no endpoint at ${calledUrl(ex)}: is the base URL right?`);
  if (!JSON_TYPE.test(ex.contentType)) {
    return status >= 400
      ? fail('http_status', `HTTP ${status}, ${ex.contentType || 'no content type'}`)
      : fail('content_type', `content type '${ex.contentType}' is not JSON`);
  }
  // Nested past what the toolkit reads: the envelope's clause, judged like any answer without it.
  if (ex.body === undefined && ex.bodyProblem)
    return {
      success: false,
      reason: 'envelope',
      message: `${ex.bodyProblem} (ENV-1)`,
      findings: judgeAnswer(api, ex),
      drift: [],
    };
  if (ex.body === undefined)
    return status >= 500
      ? fail('http_status', `HTTP ${status}, body not JSON`)
      : fail('json_parse', `the body is not valid JSON (${ex.bodyText.length} bytes)`);
  const findings = judgeAnswer(api, ex);
  const drift = api.drift(endpoint, ex.body);
  const envelope = findings.filter((f) => f.clause === 'ENV-1');
  if (envelope.length)
    return {
      success: false,
      reason: 'envelope',
      message: `${envelope[0]?.path}: expected ${envelope[0]?.expected}`,
      findings,
      drift,
    };
  const body = bodyOf(ex);
  if (body?.ok === false)
    return {
      success: false,
      reason: status >= 500 ? 'server_error' : 'refused',
      message: `ok:false status ${String(body.status)} (HTTP ${status})`,
      findings,
      drift,
    };
  if (status >= 400 || status < 200)
    return { success: false, reason: 'http_status', message: `HTTP ${status}`, findings, drift };
  if (api.successErrors(endpoint, ex.body).length) {
    const f = findings[0];
    return {
      success: false,
      reason: 'schema',
      message: f ? `${f.clause} ${findingDetail(f)}` : 'schema',
      findings,
      drift,
    };
  }
  if (findings.length) {
    const f = findings[0] as Finding;
    return {
      success: false,
      reason: 'clause',
      message: `${f.clause} ${findingDetail(f)}`,
      findings,
      drift,
    };
  }
  return { success: true, findings, drift };
}

/**
 * One probe: one request on a fresh connection, one deadline, the body cut at the cap, redirects not
 * followed, judged by the same validators and read-only clause checks as the suite. Only the read-only
 * endpoints can be named; anything else throws before a byte is sent.
 */
export async function probeEndpoint(
  api: ApiModel,
  target: Pick<ProbeTarget, 'name' | 'baseUrl' | 'apiKey' | 'tls' | 'proxyUrl'>,
  endpoint: ReadOnlyEndpoint,
  opts: ProbeOptions,
): Promise<ProbeResult> {
  if (!(READ_ONLY_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw new Error(`the probe calls only ${READ_ONLY_ENDPOINTS.join(', ')}; refused '${String(endpoint)}'`);
  }
  const at = Date.now() / 1000;
  const r = await callApi({
    baseUrl: target.baseUrl,
    endpoint,
    method: opts.method,
    params: paramsFor(endpoint, target.apiKey, opts),
    timeoutMs: opts.timeoutMs,
    bodyCap: opts.bodyCap,
    ...(target.tls ? { tls: target.tls } : {}),
    ...(target.proxyUrl ? { proxy: target.proxyUrl } : {}),
  });
  // Judged after the socket events already due have run: other probes in flight take their timestamps first.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const verdict = classify(api, endpoint, r);
  const body = r.exchange ? bodyOf(r.exchange) : undefined;
  const result: ProbeResult = {
    target: target.name,
    endpoint,
    at,
    ...verdict,
    httpStatus: r.exchange?.httpStatus ?? 0,
    phases: r.phases,
    totalMs: r.totalMs,
    ...(r.tls ? { tls: r.tls } : {}),
    ...(r.exchange ? { exchange: r.exchange } : {}),
  };
  if (r.exchange)
    result.reading = answerPoints(
      api,
      r.exchange,
      target.apiKey,
      verdict.drift.some((d) => d.kind === 'field'),
    );
  if (endpoint === 'saldo-user' && typeof body?.saldo === 'number' && body.ok === true) result.saldo = body.saldo;
  if (endpoint === 'history-transaksi' && body?.ok === true && Array.isArray(body.data)) {
    const records = body.data.filter(
      (x): x is Record<string, unknown> =>
        typeof x === 'object' && x !== null && typeof (x as Record<string, unknown>).trx_id === 'string',
    );
    const newest = records.reduce<Record<string, unknown> | undefined>(
      (best, rec) => (!best || String(rec.date) > String(best.date) ? rec : best),
      undefined,
    );
    if (newest) result.newestTrxId = String(newest.trx_id);
  }
  return result;
}

/** A probe that failed inside the toolkit: a result all the same (success 0, reason `internal`), never a gap. */
export function internalFailure(
  target: string,
  endpoint: ReadOnlyEndpoint,
  err: unknown,
  at = Date.now() / 1000,
): ProbeResult {
  return {
    target,
    endpoint,
    at,
    success: false,
    reason: 'internal',
    message: `the probe failed on this answer: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`,
    httpStatus: 0,
    phases: { dns: 0, connect: 0, tls: 0, firstByte: 0, body: 0 },
    totalMs: 0,
    findings: [],
    drift: [],
  };
}

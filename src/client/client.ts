import type { Endpoint, Method, Params } from '../openapi/types.js';
import { defaultValue } from '../shared/settings.js';
import { TimedCall } from './call.js';
import { proxyFor } from './proxy.js';
import type { CallOptions, CallPlan, CallResult } from './types.js';

export { ConnectionPool } from './pool.js';
export type { TransportReason } from './transport.js';
export type { CallOptions, CallResult, Phases, RawBody, TlsInfo, TlsOptions } from './types.js';

/** The URL of an endpoint under a base URL that may carry a path prefix. GET adds the params as a query. */
export function endpointUrl(baseUrl: string, endpoint: Endpoint, method: Method, params: Params): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/${endpoint}`;
  if (method === 'GET') {
    for (const [k, v] of Object.entries(params)) {
      for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined) url.searchParams.append(k, String(one));
    }
  }
  return url.toString();
}

/** What a call needs, worked out from its options before anything is timed. */
function callPlan(opts: CallOptions): CallPlan {
  const url = new URL(endpointUrl(opts.baseUrl, opts.endpoint, opts.method, opts.params));
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  const proxy = proxyFor(url, opts.proxy);
  const payload =
    opts.method !== 'POST' ? undefined : Buffer.from(opts.body ? opts.body.text : JSON.stringify(opts.params));
  return {
    opts,
    url,
    secure,
    host,
    port,
    ...(proxy ? { proxy } : {}),
    hop: proxy ? { host: proxy.host, port: proxy.port } : { host, port },
    ...(payload ? { payload } : {}),
    contentType: opts.body?.contentType ?? 'application/json',
    // The table's defaults (--timeout, and the probe's --body-cap: the smallest a command takes).
    timeoutMs: opts.timeoutMs ?? defaultValue('timeout', 'probe'),
    bodyCap: opts.bodyCap ?? defaultValue('body-cap', 'probe'),
  };
}

/**
 * One request on a fresh connection: the client resolves the name, connects and (for HTTPS) shakes hands itself, so
 * that each phase is timed by its own socket event (connecting-call.ts, call.ts) and a certificate that does not
 * verify is read (its expiry, its error) and nothing is sent over it. With a pool (the gate's, pool.ts) an idle
 * connection to the same target is used instead, and kept after. No redirects followed, one overall deadline, the
 * body read up to a cap (body.ts). The request accepts every content coding the client decodes (codings.ts), and
 * the cap holds for the decoded body too. A proxy (proxy.ts) is reached by CONNECT for HTTPS (tunnel.ts). Never
 * throws for what the target does: transport failures come back as `error`, with a reason of the one vocabulary
 * (transport.ts).
 */
export function callApi(opts: CallOptions): Promise<CallResult> {
  const plan = callPlan(opts);
  return new Promise<CallResult>((resolve) => new TimedCall(plan, resolve).start());
}

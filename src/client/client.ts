import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Endpoint, Exchange, Method, Params } from '../openapi/types.js';
import { reasonOfCode, type TransportReason } from './transport.js';

export type { TransportReason } from './transport.js';

/** Time spent in each phase of one request, in milliseconds, from a monotonic clock. */
export interface Phases {
  /** From start until the TCP connection is up (includes DNS). */
  connect: number;
  /** TLS handshake; 0 on plain HTTP. */
  tls: number;
  /** From the request written until the first byte of the response. */
  firstByte: number;
  /** From the first byte until the body was read (or cut). */
  body: number;
}

export interface CallResult {
  /** Present when a response arrived (even one whose body was cut at the cap). */
  exchange?: Exchange;
  /** Present when the request failed at the transport level. */
  error?: { reason: TransportReason; message: string };
  phases: Phases;
  /** Wall time of the whole call in milliseconds. */
  totalMs: number;
  /** True when the body was longer than the cap and was cut. */
  truncated: boolean;
}

export interface CallOptions {
  baseUrl: string;
  endpoint: Endpoint;
  method: Method;
  params: Params;
  /** Overall deadline for the call. @defaultValue 10000 */
  timeoutMs?: number;
  /** Bytes of body read before the body is cut. @defaultValue 1048576 */
  bodyCap?: number;
}

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

/**
 * One request on a fresh connection: no keep-alive, no redirects followed, one overall deadline, the body
 * read up to a cap. Never throws for what the target does; transport failures come back as `error`.
 */
export function callApi(opts: CallOptions): Promise<CallResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const bodyCap = opts.bodyCap ?? 1024 * 1024;
  const url = endpointUrl(opts.baseUrl, opts.endpoint, opts.method, opts.params);
  const payload = opts.method === 'POST' ? Buffer.from(JSON.stringify(opts.params)) : undefined;
  const lib = url.startsWith('https:') ? https : http;
  const t0 = performance.now();
  const marks = { connected: 0, secured: 0, sent: 0, firstByte: 0, end: 0 };

  return new Promise<CallResult>((resolve) => {
    let settled = false;
    let truncated = false;
    const phases = (): Phases => {
      const now = performance.now();
      const connected = marks.connected || now;
      const secured = marks.secured || connected;
      const sent = marks.sent || secured;
      const first = marks.firstByte || now;
      return {
        connect: connected - t0,
        tls: url.startsWith('https:') ? secured - connected : 0,
        firstByte: marks.firstByte ? first - sent : now - sent,
        body: marks.firstByte ? (marks.end || now) - first : 0,
      };
    };
    const finish = (result: Omit<CallResult, 'phases' | 'totalMs' | 'truncated'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The request's time ends with its last byte read (or its failure), before any parsing of ours.
      resolve({ ...result, phases: phases(), totalMs: (marks.end || performance.now()) - t0, truncated });
    };

    const req = lib.request(url, {
      method: opts.method,
      agent: false,
      headers: {
        accept: 'application/json',
        connection: 'close',
        ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
      },
    });
    const timer = setTimeout(() => {
      finish({ error: { reason: 'timeout', message: `no complete answer within ${timeoutMs} ms` } });
      req.destroy();
    }, timeoutMs);

    req.on('socket', (socket) => {
      socket.once('connect', () => {
        marks.connected = performance.now();
      });
      socket.once('secureConnect', () => {
        marks.secured = performance.now();
      });
    });
    req.on('finish', () => {
      marks.sent = performance.now();
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      const reason = reasonOfCode(code, {
        connected: marks.connected > 0,
        secured: marks.secured > 0,
        tls: url.startsWith('https:'),
      });
      finish({ error: { reason, message: `${code || err.name}: ${err.message}` } });
    });
    req.on('response', (res) => {
      marks.firstByte = performance.now();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = bodyCap - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = bodyCap;
          truncated = true;
          marks.end = performance.now();
          res.destroy();
          complete();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => {
        marks.end = performance.now();
        complete();
      });
      res.on('error', (err) => {
        if (!truncated) finish({ error: { reason: 'reset', message: `body: ${err.message}` } });
      });
      res.on('aborted', () => {
        if (!truncated) finish({ error: { reason: 'reset', message: 'connection closed before the body ended' } });
      });
      function complete(): void {
        const bodyText = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        if (!truncated) {
          try {
            body = JSON.parse(bodyText);
          } catch {
            body = undefined;
          }
        }
        const exchange: Exchange = {
          endpoint: opts.endpoint,
          method: opts.method,
          params: opts.params,
          url,
          httpStatus: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          headers: Object.fromEntries(
            Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
          ),
          bodyText,
          body,
          durationMs: (marks.end || performance.now()) - t0,
        };
        finish(
          truncated
            ? { exchange, error: { reason: 'body_too_large', message: `body longer than ${bodyCap} bytes` } }
            : { exchange },
        );
      }
    });
    if (payload) req.end(payload);
    else req.end();
  });
}

import { lookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import { BODY_TEXT_KEPT, type Endpoint, type Exchange, type Method, type Params } from '../openapi/types.js';
import { readJson } from '../shared/json.js';
import { ACCEPT_ENCODING, DecodeError, decodeBody } from './codings.js';
import { type ForwardProxy, proxyFor } from './proxy.js';
import { reasonOfCode, type TransportReason, tlsAdvice } from './transport.js';

export type { TransportReason } from './transport.js';

/**
 * Time spent in each phase of one request, in milliseconds, from a monotonic clock. Each is taken first thing
 * in the handler of the socket event that ends it; no parsing, validation or metric work comes between.
 */
export interface Phases {
  /** Name resolution; 0 for an IP address. */
  dns: number;
  /** From the connect call until the TCP connection is up. */
  connect: number;
  /** The TLS handshake; 0 on plain HTTP. */
  tls: number;
  /** From the request handed to the connection (written at once) until the first byte of the answer. */
  firstByte: number;
  /** From the first byte until the last byte of the body arrived (or it was cut). */
  body: number;
}

/** How to trust an HTTPS target. */
export interface TlsOptions {
  /** A PEM file of the CAs to trust (instead of the system's). */
  caFile?: string;
  /** The name the certificate must carry, when it is not the URL's host. */
  serverName?: string;
  /** Send even when the certificate does not verify (its expiry is still read). @defaultValue false */
  insecureSkipVerify?: boolean;
}

/** What the TLS handshake showed, also when the certificate did not verify. */
export interface TlsInfo {
  /** `TLSv1.3`, ... */
  version: string;
  /** The earliest notAfter of the presented chain, Unix seconds. */
  certExpiry?: number;
  authorized: boolean;
  /** Why it did not verify: `CERT_HAS_EXPIRED`, `DEPTH_ZERO_SELF_SIGNED_CERT`, `ERR_TLS_CERT_ALTNAME_INVALID`, ... */
  authorizationError?: string;
}

export interface CallResult {
  /** Present when a response arrived (even one whose body was cut at the cap). */
  exchange?: Exchange;
  /** Present when the request failed at the transport level. */
  error?: { reason: TransportReason; message: string };
  phases: Phases;
  /**
   * Duration of the call in milliseconds: for an answer, the sum of its phases (the toolkit's own work between
   * them, such as building the request, is not the target's time); for a failure, the wall time until it.
   */
  totalMs: number;
  /** True when the body was longer than the cap and was cut. */
  truncated: boolean;
  /** For HTTPS: what the handshake showed. */
  tls?: TlsInfo;
}

/** A POST body sent as it is, in place of the parameters as JSON (a malformed body, another media type). */
export interface RawBody {
  text: string;
  contentType: string;
}

export interface CallOptions {
  baseUrl: string;
  endpoint: Endpoint;
  /** POST only: this body as it is, in place of `params` as JSON (`params` then says what it carries, for reports). */
  body?: RawBody;
  method: Method;
  params: Params;
  /** Overall deadline for the call, name resolution to the last byte. @defaultValue 10000 */
  timeoutMs?: number;
  /** Bytes of body read before the body is cut, as sent and once decoded. @defaultValue 1048576 */
  bodyCap?: number;
  tls?: TlsOptions;
  /** A forward proxy for this request (the probe's per-target `proxy_url`); else the environment's (proxy.ts). */
  proxy?: string;
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

/** Bodies longer than this share the records they repeat with answers read before (readJson's `share`). */
const SHARE_FROM = 256 * 1024;

/** node:tls, loaded by the first HTTPS call: a probe of plain-HTTP targets does not hold it in memory. */
let tlsModule: typeof tls | undefined;
function tlsConnect(options: tls.ConnectionOptions): tls.TLSSocket {
  tlsModule ??= createRequire(import.meta.url)('node:tls') as typeof tls;
  return tlsModule.connect(options);
}

const caCache = new Map<string, Buffer>();
function caOf(file: string): Buffer {
  let ca = caCache.get(file);
  if (!ca) {
    ca = readFileSync(file);
    caCache.set(file, ca);
  }
  return ca;
}

/** The earliest notAfter of a presented chain, in Unix seconds. */
function earliestExpiry(socket: tls.TLSSocket): number | undefined {
  let cert: tls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  let earliest: number | undefined;
  const seen = new Set<string>();
  while (cert && Object.keys(cert).length > 0 && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    const t = Date.parse(cert.valid_to) / 1000;
    if (Number.isFinite(t)) earliest = earliest === undefined ? t : Math.min(earliest, t);
    cert = cert.issuerCertificate;
  }
  return earliest;
}

/**
 * One request on a fresh connection: the client resolves the name, connects and (for HTTPS) shakes hands
 * itself, so that each phase is timed by its own socket event and a certificate that does not verify is read
 * (its expiry, its error) and nothing is sent over it. No keep-alive, no redirects followed, one overall
 * deadline, the body read up to a cap. The request accepts every content coding the client decodes
 * (codings.ts), and the cap holds for the decoded body too. Never throws for what the target does: transport
 * failures come back as `error`, with a reason of the one vocabulary (transport.ts).
 */
export function callApi(opts: CallOptions): Promise<CallResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const bodyCap = opts.bodyCap ?? 1024 * 1024;
  const url = new URL(endpointUrl(opts.baseUrl, opts.endpoint, opts.method, opts.params));
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  const proxy = proxyFor(url, opts.proxy);
  /** Where the TCP connection goes: the proxy, or the target. */
  const hop = proxy ? { host: proxy.host, port: proxy.port } : { host, port };
  const payload =
    opts.method !== 'POST' ? undefined : Buffer.from(opts.body ? opts.body.text : JSON.stringify(opts.params));
  const contentType = opts.body?.contentType ?? 'application/json';
  const t0 = performance.now();
  const marks = { resolved: 0, connecting: 0, connected: 0, secured: 0, sent: 0, firstByte: 0, lastData: 0, end: 0 };

  return new Promise<CallResult>((resolve) => {
    let settled = false;
    let truncated = false;
    let tlsInfo: TlsInfo | undefined;
    let socket: net.Socket | undefined;
    const phases = (): Phases => {
      const now = performance.now();
      const resolved = marks.resolved || now;
      const connected = marks.connected || (marks.connecting ? now : 0);
      const secured = secure ? marks.secured || (marks.connected ? now : connected) : connected;
      return {
        dns: resolved - t0,
        connect: marks.connecting ? connected - marks.connecting : 0,
        tls: secure && marks.connected ? secured - connected : 0,
        firstByte: marks.sent ? (marks.firstByte || now) - marks.sent : 0,
        body: marks.firstByte ? (marks.end || now) - marks.firstByte : 0,
      };
    };
    const sumOf = (p: Phases): number => p.dns + p.connect + p.tls + p.firstByte + p.body;
    const finish = (result: Omit<CallResult, 'phases' | 'totalMs' | 'truncated'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      // The request's time ends with its last byte read (or its failure), before any parsing of ours.
      const p = phases();
      resolve({
        ...result,
        ...(tlsInfo ? { tls: tlsInfo } : {}),
        phases: p,
        totalMs: result.exchange ? sumOf(p) : performance.now() - t0,
        truncated,
      });
    };
    const fail = (reason: TransportReason, message: string): void => finish({ error: { reason, message } });
    const timer = setTimeout(() => fail('timeout', `no complete answer within ${timeoutMs} ms`), timeoutMs);
    const reached = (): { connected: boolean; secured: boolean; tls: boolean } => ({
      connected: marks.connected > 0,
      secured: marks.secured > 0,
      tls: secure,
    });

    /**
     * Builds the request (headers and body ready) and gives back the function that hands it its connection:
     * the building is the toolkit's work and happens before any phase is timed.
     */
    const request = (): ((conn: net.Socket) => void) => {
      let handOver: ((err: Error | null, socket: net.Socket) => void) | undefined;
      const req = http.request({
        createConnection: (_options, oncreate) => {
          handOver = oncreate;
          return undefined;
        },
        method: opts.method,
        host,
        port,
        // Plain HTTP through a proxy: the absolute URL, as a proxy reads it.
        path: proxy && !secure ? url.toString() : `${url.pathname}${url.search}`,
        headers: {
          host: url.host,
          ...(proxy?.authorization && !secure ? { 'proxy-authorization': proxy.authorization } : {}),
          accept: 'application/json',
          'accept-encoding': ACCEPT_ENCODING,
          connection: 'close',
          ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
        },
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!settled) fail(marks.sent ? 'reset' : 'connect', `${err.code ?? err.name}: ${err.message}`);
      });
      req.on('response', (res) => {
        // The proxy's own refusal (plain HTTP through it): nothing reached the target.
        if (proxy && (res.statusCode === 407 || res.headers['proxy-authenticate'])) {
          res.resume();
          return fail(
            'connect',
            `proxy ${proxy.label} refused the request: HTTP 407 ${res.statusMessage ?? ''}`.trim(),
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        // With a declared length, the body ends at the chunk that completes it (not at the stream's later 'end').
        const declared = Number(res.headers['content-length'] ?? Number.NaN);
        const complete = async (): Promise<void> => {
          let raw: Buffer = Buffer.concat(chunks);
          // The pieces are copied: let them go before the body is decoded and parsed (a busy account's history
          // is megabytes, and every copy held at once counts).
          chunks.length = 0;
          let undecodable: DecodeError | undefined;
          const coding = res.headers['content-encoding'];
          if (!truncated && coding) {
            try {
              raw = await decodeBody(raw, coding, bodyCap);
            } catch (err) {
              if (!(err instanceof DecodeError)) throw err;
              undecodable = err;
              raw = Buffer.alloc(0);
            }
          }
          const text = raw.toString('utf8');
          // Kept whole only when short: a busy account's history is megabytes, and its parsed body is what is read.
          // The beginning is a string of its own (a slice would hold the whole text in memory).
          const bodyText = raw.length > BODY_TEXT_KEPT ? raw.subarray(0, BODY_TEXT_KEPT).toString('utf8') : text;
          raw = Buffer.alloc(0);
          // Read by the one bounded reader: a byte-order mark dropped, a body nested past the depth the toolkit
          // reads refused before it is parsed (ENV-1 says so), never a crash of whoever judges it.
          const read = !truncated && !undecodable ? readJson(text, { share: text.length > SHARE_FROM }) : undefined;
          const body = read?.value;
          const bodyProblem = read?.problem !== undefined && read.kind === 'depth' ? read.problem : undefined;
          const exchange: Exchange = {
            endpoint: opts.endpoint,
            method: opts.method,
            params: opts.params,
            url: url.toString(),
            ...(opts.body ? { sentBody: opts.body } : {}),
            httpStatus: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
            ),
            bodyText,
            ...(bodyText.length < text.length ? { bodyLength: text.length } : {}),
            body,
            ...(bodyProblem ? { bodyProblem } : {}),
            durationMs: sumOf(phases()),
          };
          finish(
            truncated
              ? { exchange, error: { reason: 'body_too_large', message: `body longer than ${bodyCap} bytes` } }
              : undecodable
                ? { exchange, error: { reason: undecodable.reason, message: undecodable.message } }
                : { exchange },
          );
        };
        res.on('data', (chunk: Buffer) => {
          // The bytes of this chunk came with the socket's last data event, timed before any parsing.
          const at = marks.lastData || performance.now();
          if (truncated) return;
          const room = bodyCap - size;
          if (chunk.length > room) {
            marks.end = at;
            chunks.push(chunk.subarray(0, room));
            size = bodyCap;
            truncated = true;
            complete().catch((err: Error) => fail('reset', err.message));
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
          if (size === declared) marks.end = at;
        });
        res.on('end', () => {
          marks.end ||= marks.lastData || performance.now();
          // Read after the socket events already due: another call's last byte is timed before this parsing.
          setImmediate(() => complete().catch((err: Error) => fail('reset', err.message)));
        });
        res.on('error', (err) => {
          if (!truncated) fail('reset', `body: ${err.message}`);
        });
        res.on('aborted', () => {
          if (!truncated) fail('reset', 'connection closed before the body ended');
        });
      });
      if (payload) req.end(payload);
      else req.end();
      return (conn) => {
        // Before the HTTP parser's own listener: each chunk is timed as it arrives, before it is parsed.
        conn.on('data', () => {
          marks.lastData = performance.now();
          marks.firstByte ||= marks.lastData;
        });
        handOver?.(null, conn);
      };
    };

    const connect = (address: string, family: number): void => {
      // The socket is built first: its construction is the toolkit's work, not the target's connect time.
      const raw = new net.Socket();
      socket = raw;
      raw.once('connect', () => {
        // Plain HTTP: the request waits in the socket's buffer and Node writes it right after this handler.
        if (!secure) {
          marks.connected = performance.now();
          marks.sent = marks.connected;
          return;
        }
        // HTTPS through a proxy: the tunnel is part of connect; the target's TLS starts once it stands.
        if (proxy) tunnel(raw, proxy, startTls);
        else {
          marks.connected = performance.now();
          startTls();
        }
      });
      const startTls = (): void => {
        const name = opts.tls?.serverName ?? host;
        const t = tlsConnect({
          socket: raw,
          // The name the certificate must carry (SNI is sent for names, never for an IP address).
          host: name,
          ...(net.isIP(name) ? {} : { servername: name }),
          ...(opts.tls?.caFile ? { ca: caOf(opts.tls.caFile) } : {}),
          // Verified below, by hand: a certificate that fails is still read, and nothing is sent over it.
          rejectUnauthorized: false,
        });
        socket = t;
        t.once('secureConnect', () => {
          marks.secured = performance.now();
          tlsInfo = {
            version: t.getProtocol() ?? 'unknown',
            authorized: t.authorized,
            ...(t.authorizationError ? { authorizationError: String(t.authorizationError) } : {}),
          };
          const expiry = earliestExpiry(t);
          if (expiry !== undefined) tlsInfo.certExpiry = expiry;
          if (!t.authorized && !opts.tls?.insecureSkipVerify) {
            const code = tlsInfo.authorizationError ?? 'unknown reason';
            return fail('tls', `the certificate does not verify: ${code}: ${tlsAdvice(code)}`);
          }
          const send = request();
          marks.sent = performance.now();
          send(t);
        });
        t.on('error', (err: NodeJS.ErrnoException) => {
          if (!marks.secured) fail('tls', `handshake: ${err.code ?? err.name}: ${err.message}`);
        });
      };
      raw.on('error', (err: NodeJS.ErrnoException) => {
        // Before the connection stands, a failure is the proxy's when there is one: it is named.
        const via = proxy && !marks.connected ? `proxy ${proxy.label}: ` : '';
        if (!settled && !marks.sent)
          fail(reasonOfCode(err.code ?? '', reached()), `${via}${err.code ?? err.name}: ${err.message}`);
        else if (!settled) fail('reset', `${err.code ?? err.name}: ${err.message}`);
      });
      // Plain HTTP: the request is built before connecting and waits in the socket's buffer, so no work of ours
      // sits between the connection and the request's first byte. Over TLS it is built only once the
      // certificate has verified: nothing is sent before.
      const send = secure ? undefined : request();
      // Connected once the work already due has run (other calls' set-up included), so that it is not timed.
      setImmediate(() => {
        if (settled) return;
        // Node makes the connect call on the next tick, after building the socket's handle; this tick runs
        // just before it, so the phase starts at the call itself.
        process.nextTick(() => {
          marks.connecting = performance.now();
        });
        raw.connect({ host: address, port: hop.port, family });
        send?.(raw);
      });
    };

    /**
     * CONNECT host:port on the proxy's connection; `then` once it answers 2xx (the tunnel stands: connected), a
     * failure of reason connect otherwise (nothing reached the target).
     */
    const tunnel = (conn: net.Socket, via: ForwardProxy, then: () => void): void => {
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        conn.removeListener('data', onData);
        const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head.subarray(0, end).toString('latin1'));
        const code = Number(status?.[1] ?? 0);
        if (code < 200 || code > 299) {
          fail(
            'connect',
            `proxy ${via.label} refused the tunnel to ${url.host}: ${status ? `HTTP ${code}${status[2]}` : 'no HTTP answer'}`,
          );
          return;
        }
        marks.connected = performance.now();
        then();
      };
      conn.on('data', onData);
      conn.once('end', () => {
        if (!marks.connected) fail('connect', `proxy ${via.label} closed the connection before the tunnel stood`);
      });
      conn.write(
        `CONNECT ${host.includes(':') ? `[${host}]` : host}:${port} HTTP/1.1\r\nHost: ${host.includes(':') ? `[${host}]` : host}:${port}\r\n${
          via.authorization ? `Proxy-Authorization: ${via.authorization}\r\n` : ''
        }\r\n`,
      );
    };

    const family = net.isIP(hop.host);
    if (family) {
      marks.resolved = t0;
      connect(hop.host, family);
    } else {
      lookup(hop.host, (err, address, fam) => {
        if (settled) return;
        marks.resolved = performance.now();
        if (err) return fail('dns', `${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message}`);
        connect(address, fam);
      });
    }
  });
}

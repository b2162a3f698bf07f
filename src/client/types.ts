import type { Endpoint, Exchange, Method, Params } from '../openapi/types.js';
import type { ConnectionPool } from './pool.js';
import type { ForwardProxy } from './proxy.js';
import type { TransportReason } from './transport.js';

// The client's types: what a call is given and what it gives back (client.ts exports them), and the plan of one
// call that its parts share.

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
  /**
   * Connections kept between calls (pool.ts): the call takes an idle one to its target, or makes one and puts it
   * back once the answer is read whole. Without one, each call has a connection of its own, closed after it. A call
   * that fails on a kept connection before any answer says so (the server may have closed it), and is not sent
   * again here.
   */
  pool?: ConnectionPool;
}

/** One call worked out before anything is timed: where it goes, through what, and what it sends. */
export interface CallPlan {
  opts: CallOptions;
  url: URL;
  secure: boolean;
  /** The target's host (an IPv6 address without its brackets) and port. */
  host: string;
  port: number;
  proxy?: ForwardProxy;
  /** Where the TCP connection goes: the proxy, or the target. */
  hop: { host: string; port: number };
  /** POST only: the bytes of the body. */
  payload?: Buffer;
  contentType: string;
  timeoutMs: number;
  bodyCap: number;
}

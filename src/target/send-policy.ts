import { ConnectionPool, callApi, type RawBody, type TlsOptions } from '../client/client.js';
import { isRateLimit, nothingSent, retryAfterMs, TransportError } from '../client/transport.js';
import type { Endpoint, Exchange, Method, Params } from '../openapi/types.js';
import { defaultValue } from '../shared/settings.js';
import type { Pace } from './pace.js';

/** How one request goes out, besides its parameters. */
export interface RawOptions {
  /** POST only: this body as it is, in place of the parameters as JSON. */
  body?: RawBody;
  /** An invite that may share a kept connection (httpSend): one the run expects refused. */
  kept?: boolean;
  /**
   * On a connection of its own, never a kept one (httpSend): a read sent again after it was lost, which a kept
   * connection the server (or a proxy between) had closed may have lost, as it may have closed the others kept.
   */
  fresh?: boolean;
}

/** Sends one request as is; throws TransportError when no HTTP answer came. */
export type RawSend = (endpoint: Endpoint, method: Method, params: Params, opts?: RawOptions) => Promise<Exchange>;

/** A rate-limit answer the gate waited out. */
export interface Wait {
  endpoint: Endpoint;
  method: Method;
  httpStatus: number;
  ms: number;
}

/** What the sending of one scenario's requests went through: never a finding, always reported. */
export interface TrafficNotes {
  /** Transport errors that a second attempt got past. */
  flaky: string[];
  waits: Wait[];
}

/** Still rate-limited after the wait cap: the request says nothing about the contract. */
export class RateLimited extends Error {}

/**
 * An invite answered 503 with Retry-After: a rate limit, but only a 429 says the request was not carried out
 * (contract-clauses.md), so it may have been charged and is never sent again.
 */
export class MaybeCarriedOut extends RateLimited {}

export interface SendPolicy {
  /** The run's pace (`--concurrency`, `--rate-limit`): every attempt waits for its turn. Absent: unpaced. */
  pace?: Pace;
  /** Total time one request may spend waiting out 429s (`--max-wait`). */
  maxWaitMs: number;
  /** @defaultValue setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Sends one request under the gate's rules:
 * - paced by the run's pace (a slot of `--concurrency` held while the request is in flight, `--rate-limit`);
 * - a rate limit (429, or 503 with Retry-After) is waited out as told (1 s, then doubling, when it does not
 *   say) and the same request sent again; an invite only after a 429, which says it was not carried out (after a
 *   503 it may have been: MaybeCarriedOut); past the wait cap the request gives up with RateLimited;
 * - a failure before anything was sent (DNS, a refused connection, TLS) is tried once more;
 * - a reset or a timeout is tried once more for a read (on a connection of its own), and never for an invite: it
 *   may have been charged.
 */
export async function sendUnderPolicy(
  raw: RawSend,
  endpoint: Endpoint,
  method: Method,
  params: Params,
  policy: SendPolicy,
  notes: TrafficNotes,
  opts: RawOptions = {},
): Promise<Exchange> {
  const sleep = policy.sleep ?? sleepFor;
  const invite = endpoint === 'invite-member';
  let waited = 0;
  let backoff = 1000;
  let firstFailure: string | undefined;
  for (;;) {
    // An invite's turn comes before the reads waiting (Pace.acquire's `first`).
    const release = await policy.pace?.acquire(1, invite);
    let ex: Exchange;
    try {
      ex = await raw(endpoint, method, params, firstFailure === undefined ? opts : { ...opts, fresh: true });
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      const mayRetry = nothingSent(err.reason) || !invite;
      if (firstFailure !== undefined || !mayRetry) {
        throw firstFailure !== undefined
          ? new TransportError(`${err.message} (after one retry)`, err.reason)
          : new TransportError(`${err.message} (an invite is never sent again after ${err.reason})`, err.reason);
      }
      firstFailure = `${err.reason}: ${err.message}`;
      continue;
    } finally {
      release?.();
    }
    policy.pace?.report(isRateLimit(ex));
    if (isRateLimit(ex) && invite && ex.httpStatus !== 429)
      throw new MaybeCarriedOut(
        `${method} ${endpoint}: HTTP ${ex.httpStatus} with Retry-After; only a 429 says an invite was not carried out, so it is not sent again`,
      );
    if (isRateLimit(ex)) {
      const asked = retryAfterMs(ex.headers?.['retry-after']);
      const wait = asked ?? backoff;
      backoff = Math.min(backoff * 2, 30_000);
      if (waited + wait > policy.maxWaitMs)
        throw new RateLimited(
          `${method} ${endpoint}: still rate-limited (HTTP ${ex.httpStatus}) after ${Math.round(waited / 100) / 10} s of waits; --max-wait ${policy.maxWaitMs / 1000} s`,
        );
      notes.waits.push({ endpoint, method, httpStatus: ex.httpStatus, ms: wait });
      waited += wait;
      await sleep(wait);
      continue;
    }
    if (firstFailure !== undefined) notes.flaky.push(`${method} ${endpoint}: ${firstFailure}; passed on retry`);
    return ex;
  }
}

/** How the gate's requests go: their deadline, the body cap and, for HTTPS, how to trust the target. */
export interface HttpOptions {
  /** @defaultValue the table's (--timeout) */
  timeoutMs?: number;
  /** @defaultValue the table's (--body-cap of h2h contract) */
  bodyCap?: number;
  tls?: TlsOptions;
}

/**
 * A RawSend over the toolkit's own client (node:http): for preflight, discovery, tests and benchmarks. Reads, and
 * invites sent `kept` (those the run expects refused: scenario-invites.ts), go on connections kept between them
 * (client/pool.ts): a run sends thousands, and a new connection for each (a TLS handshake, against a provider)
 * cost more than the request. A request lost on a kept connection is never sent again by the client:
 * sendUnderPolicy tries a read once more (noted as flaky), on a connection of its own (`fresh`: a proxy that
 * closed one kept connection may have closed them all), never an invite. Any other invite has a connection of
 * its own: one the provider closed as it waited would leave it unknown whether an invite meant to be carried out
 * was charged, and the copies of INV-5 in flight must leave together, not one on a kept connection ahead.
 */
export function httpSend(baseUrl: string, opts: HttpOptions = {}): RawSend {
  const timeoutMs = opts.timeoutMs ?? defaultValue('timeout');
  const bodyCap = opts.bodyCap ?? defaultValue('body-cap');
  const pool = new ConnectionPool();
  return async (endpoint, method, params, how = {}) => {
    const r = await callApi({
      baseUrl,
      endpoint,
      method,
      params,
      ...(how.body ? { body: how.body } : {}),
      timeoutMs,
      bodyCap,
      ...(opts.tls ? { tls: opts.tls } : {}),
      ...((endpoint !== 'invite-member' || how.kept) && !how.fresh ? { pool } : {}),
    });
    if (r.error || !r.exchange) throw new TransportError(r.error?.message ?? 'no answer', r.error?.reason ?? 'connect');
    return r.exchange;
  };
}

import type { Exchange } from '../openapi/types.js';

/**
 * Why no (whole) answer came: one vocabulary for the client, the gate and the probe.
 * - `dns`: the host name did not resolve (nothing sent);
 * - `connect`: the connection was refused or could not be made (nothing sent);
 * - `tls`: the TLS handshake failed (nothing of the request sent);
 * - `reset`: the connection broke after the request may have been sent;
 * - `timeout`: no complete answer within the deadline (the request may have been carried out);
 * - `body_too_large`: the answer's body was longer than the cap and was cut (as sent, or once decoded);
 * - `content_coding`: the body came in a content coding the client cannot decode (the request was carried out).
 */
export const TRANSPORT_REASONS = [
  'dns',
  'connect',
  'tls',
  'reset',
  'timeout',
  'body_too_large',
  'content_coding',
] as const;
export type TransportReason = (typeof TRANSPORT_REASONS)[number];

/** Whether a request that failed this way cannot have reached the target's application. */
export function nothingSent(reason: TransportReason): boolean {
  return reason === 'dns' || reason === 'connect' || reason === 'tls';
}

/** The reason of a Node.js socket error code, given what the connection had reached. */
export function reasonOfCode(
  code: string,
  reached: { connected: boolean; secured: boolean; tls: boolean },
): TransportReason {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (!reached.connected) return 'connect';
  if (reached.tls && !reached.secured) return 'tls';
  return 'reset';
}

/** No HTTP answer came: thrown by the gate's senders, with its reason in the one vocabulary. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly reason: TransportReason,
  ) {
    super(message);
  }
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether an answer is a rate limit: 429, or 503 with Retry-After. Neither says anything about the contract. */
export function isRateLimit(ex: Exchange): boolean {
  return ex.httpStatus === 429 || (ex.httpStatus === 503 && ex.headers?.['retry-after'] !== undefined);
}

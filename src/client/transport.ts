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

/**
 * What would let a certificate that does not verify be trusted, by its error code: the settings that help (the
 * gate's and the probe's flags, the probe file's `tls:` keys, Node's NODE_EXTRA_CA_CERTS).
 */
export function tlsAdvice(code: string): string {
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED/.test(code))
    return "signed by a CA this machine does not trust: give that CA with --ca-file PEM (tls.ca_file in probe.yaml), or add it to the system's with NODE_EXTRA_CA_CERTS=PEM";
  if (/ALTNAME|HOSTNAME/.test(code))
    return 'made out to another name: --server-name NAME (tls.server_name in probe.yaml) names the one it must carry';
  if (/EXPIRED|NOT_YET_VALID/.test(code))
    return 'out of its validity dates: the target must renew it (--insecure-skip-verify sends anyway, for a test target only)';
  return '--ca-file, --server-name, or for a test target only --insecure-skip-verify';
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

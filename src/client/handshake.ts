import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import type tls from 'node:tls';
import type { TlsInfo, TlsOptions } from './types.js';

// The TLS side of a call: the handshake over a connection that stands, and what it showed.

/** node:tls, loaded by the first HTTPS call: a probe of plain-HTTP targets does not hold it in memory. */
let tlsModule: typeof tls | undefined;

const caCache = new Map<string, Buffer>();
function caOf(file: string): Buffer {
  let ca = caCache.get(file);
  if (!ca) {
    ca = readFileSync(file);
    caCache.set(file, ca);
  }
  return ca;
}

/**
 * Starts the TLS handshake over `socket` for `host` (or the name the options give). The certificate is not
 * verified by Node: whoever handles 'secureConnect' verifies it by hand, so that a certificate that fails is
 * still read and nothing is sent over it.
 */
export function startHandshake(socket: net.Socket, host: string, options: TlsOptions | undefined): tls.TLSSocket {
  tlsModule ??= createRequire(import.meta.url)('node:tls') as typeof tls;
  const name = options?.serverName ?? host;
  return tlsModule.connect({
    socket,
    // The name the certificate must carry (SNI is sent for names, never for an IP address).
    host: name,
    ...(net.isIP(name) ? {} : { servername: name }),
    ...(options?.caFile ? { ca: caOf(options.caFile) } : {}),
    rejectUnauthorized: false,
  });
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

/** What a finished handshake showed, also when the certificate did not verify. */
export function tlsInfoOf(socket: tls.TLSSocket): TlsInfo {
  const info: TlsInfo = {
    version: socket.getProtocol() ?? 'unknown',
    authorized: socket.authorized,
    ...(socket.authorizationError ? { authorizationError: String(socket.authorizationError) } : {}),
  };
  const expiry = earliestExpiry(socket);
  if (expiry !== undefined) info.certExpiry = expiry;
  return info;
}

import type net from 'node:net';
import type { ForwardProxy } from './proxy.js';

/** What becomes of a tunnel: it stands (the target is reached through it), or the proxy refused it. */
export interface TunnelEvents {
  stood(): void;
  /** Nothing reached the target: why, naming the proxy. */
  refused(message: string): void;
}

/**
 * CONNECT host:port on the proxy's connection `conn`; `stood` once the proxy answers 2xx, `refused` when it
 * answers anything else or closes the connection first. The proxy's answer is read up to the end of its head;
 * after it, the connection is the target's.
 */
export function openTunnel(
  conn: net.Socket,
  via: ForwardProxy,
  target: { host: string; port: number; label: string },
  on: TunnelEvents,
): void {
  let head = Buffer.alloc(0);
  let stood = false;
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    conn.removeListener('data', onData);
    const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head.subarray(0, end).toString('latin1'));
    const code = Number(status?.[1] ?? 0);
    if (code < 200 || code > 299) {
      const answer = status ? `HTTP ${code}${status[2]}` : 'no HTTP answer';
      on.refused(`proxy ${via.label} refused the tunnel to ${target.label}: ${answer}`);
      return;
    }
    stood = true;
    on.stood();
  };
  conn.on('data', onData);
  conn.once('end', () => {
    if (!stood) on.refused(`proxy ${via.label} closed the connection before the tunnel stood`);
  });
  const authority = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  const authorization = via.authorization ? `Proxy-Authorization: ${via.authorization}\r\n` : '';
  conn.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authorization}\r\n`);
}

import type { Server } from 'node:net';
import { UsageError } from './config-file.js';

const HINTS: Record<string, string> = {
  EADDRINUSE: 'the port is in use: choose another, or 0 for a free one',
  EACCES: 'not allowed to bind that port',
  EADDRNOTAVAIL: 'no such local address',
};

/**
 * Listens on host:port and gives the address as `host:port` (IPv6 in brackets). An address that cannot be
 * bound is the user's to fix: a UsageError (exit 2) naming the flag, not a crash.
 */
export async function listen(server: Server, host: string, port: number, flag: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException): void => {
      const hint = err.code ? HINTS[err.code] : undefined;
      reject(hint ? new UsageError(`${flag}: cannot listen on ${host}:${port}: ${err.code} (${hint})`) : err);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') return String(addr);
  return `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
}

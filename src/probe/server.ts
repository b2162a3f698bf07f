import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { redact } from '../redact.js';
import type { Probe } from './probe.js';

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/** /metrics (Prometheus text or OpenMetrics), /healthz, /status. A failing collector answers 500; the process goes on. */
export async function startProbeServer(probe: Probe, host: string, port: number): Promise<ProbeServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://probe.invalid').pathname;
    const send = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET only\n');
    if (path === '/metrics') {
      probe.metrics
        .exposition(req.headers.accept)
        .then((m) => send(200, m.contentType, m.body))
        .catch((err: unknown) =>
          send(500, 'text/plain', `collecting metrics failed: ${redact((err as Error).message)}\n`),
        );
      return;
    }
    if (path === '/healthz')
      return send(200, 'application/json', `${JSON.stringify({ status: 'ok', cycles: probe.cycles })}\n`);
    if (path === '/status')
      return send(200, 'application/json', `${redact(JSON.stringify(probe.statusJson(), null, 2))}\n`);
    send(404, 'text/plain', 'paths: /metrics /healthz /status\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${h}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

import http from 'node:http';
import { redact } from '../redact.js';
import { listen } from '../shared/listen.js';
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
      return send(200, 'application/json', `${JSON.stringify({ status: 'ok', checks: probe.checks })}\n`);
    if (path === '/status')
      return send(200, 'application/json', `${redact(JSON.stringify(probe.statusJson(), null, 2))}\n`);
    send(404, 'text/plain', 'paths: /metrics /healthz /status\n');
  });
  const address = await listen(server, host, port, '--listen');
  return {
    url: `http://${address}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

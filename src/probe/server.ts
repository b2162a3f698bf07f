import { redact } from '../redact.js';
import { httpModule } from '../shared/http-modules.js';
import { listen } from '../shared/listen.js';
import { answerProbe } from './exporter.js';
import type { Probe } from './probe.js';

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/**
 * /metrics (the Prometheus text format), /healthz, /status, and /probe?target=NAME (the exporter mode). A
 * failing collector or round answers 500 with one redacted line; the process goes on.
 */
export async function startProbeServer(probe: Probe, host: string, port: number): Promise<ProbeServer> {
  const server = httpModule.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://probe.invalid');
    const path = url.pathname;
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
    if (path === '/probe') {
      const header = req.headers['x-prometheus-scrape-timeout-seconds'];
      answerProbe(probe, url.searchParams, Array.isArray(header) ? header[0] : header, probe.timeoutOffsetMs)
        .then((a) => {
          probe.metrics.recordExporterRequest(a.outcome);
          send(a.status, a.contentType, a.body);
        })
        .catch((err: unknown) => {
          probe.metrics.recordExporterRequest('error');
          send(500, 'text/plain', `probing failed: ${redact((err as Error).message)}\n`);
        });
      return;
    }
    if (path === '/healthz')
      return send(200, 'application/json', `${JSON.stringify({ status: 'ok', rounds: probe.rounds })}\n`);
    if (path === '/status')
      return send(200, 'application/json', `${redact(JSON.stringify(probe.statusJson(), null, 2))}\n`);
    send(404, 'text/plain', 'paths: /metrics /probe?target=NAME /healthz /status\n');
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

import type http from 'node:http';
import zlib from 'node:zlib';
import { type Answer, refuse } from './answer.js';
import type { FaultSetting } from './faults/index.js';

/** What the `gzip-bomb` fault's body decodes to. */
export const BOMB = 10 * 1024 * 1024;
/** 10 MiB of JSON once decoded (a string of spaces in a valid envelope), gzip at its best ratio: made once. */
let bomb: Buffer | undefined;

/** Makes ahead what a transport fault sends (the gzip bomb), so that its first answer is as quick as the rest. */
export function prepareTransportFault(fault: FaultSetting | null): Buffer | undefined {
  if (fault?.name !== 'gzip-bomb') return undefined;
  bomb ??= zlib.gzipSync(
    Buffer.concat([
      Buffer.from('{"ok":true,"status":"SUCCESS","saldo":1,"pad":"'),
      Buffer.alloc(BOMB, 32),
      Buffer.from('"}'),
    ]),
    { level: 9 },
  );
  return bomb;
}

/** Schedules a callback the simulator can cancel when it closes. */
export type Later = (ms: number, fn: () => void) => void;

/**
 * Applies the active transport fault to a request before the business rules run. True when the fault has
 * taken over the answer (reset, hang, a broken body); false when the request goes on (latency waits first).
 */
export async function applyTransportFault(
  fault: FaultSetting | null,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: { requestKey: string; seen: Set<string>; later: Later },
): Promise<boolean> {
  switch (fault?.name) {
    case 'reset-first':
      if (ctx.seen.has(ctx.requestKey)) return false;
      ctx.seen.add(ctx.requestKey);
      req.socket.resetAndDestroy();
      return true;
    case 'latency':
      await new Promise<void>((r) => ctx.later(fault.ms ?? 1500, r));
      return false;
    case 'http-500-html':
      res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>500 Internal Server Error</h1><p>upstream failed</p></body></html>');
      return true;
    case 'reset':
      req.socket.resetAndDestroy();
      return true;
    case 'hang':
      return true;
    case 'gzip-bomb': {
      const body = prepareTransportFault(fault) as Buffer;
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': body.length,
      });
      res.end(body);
      return true;
    }
    case 'invalid-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok": true, "status": "SUCCESS", "saldo": 15');
      return true;
    case 'oversized-body': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      res.write('{"ok":true,"status":"SUCCESS","padding":"');
      for (let i = 0; i < 64 && !res.destroyed; i++) {
        if (!res.write(chunk))
          await new Promise<void>((r) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              r();
            };
            res.once('drain', done);
            res.once('close', done);
          });
      }
      if (!res.destroyed) res.end('"}');
      return true;
    }
    case 'slow-drip': {
      const bytes = Buffer.from(JSON.stringify({ ok: true, status: 'SUCCESS', saldo: 0, note: 'slow drip' }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      let i = 0;
      const drip = (): void => {
        if (res.destroyed) return;
        res.write(bytes.subarray(i, i + 1));
        i++;
        if (i < bytes.length) ctx.later(fault.ms ?? 200, drip);
        else res.end();
      };
      drip();
      return true;
    }
    default:
      return false;
  }
}

/** Invites carried out before the `outage` fault's window opens: the run is under way by then. */
export const OUTAGE_AFTER = 6;

/** The answer of every request in the `outage` fault's window: 503 with Retry-After, as a maintenance page says. */
const MAINTENANCE: Answer = {
  ...refuse('MAINTENANCE', 'Down for maintenance; try again in 1 s.'),
  headers: { 'retry-after': '1' },
};

/**
 * The `outage` fault: a brief maintenance window in mid-run. The OUTAGE_AFTER-th invite carried out opens it (it
 * is charged, and answered 503: the caller cannot tell); for `ms` milliseconds (default 3000) from then every
 * request to the API is answered 503 with Retry-After: 1.
 */
export class Outage {
  private invites = 0;
  private until: number | undefined;

  constructor(private readonly fault: () => FaultSetting | null) {}

  /** The maintenance answer while the window is open, else undefined. */
  now(): Answer | undefined {
    return this.until !== undefined && performance.now() < this.until ? MAINTENANCE : undefined;
  }

  /** Counts an invite carried out: the maintenance answer when it opens the window, else undefined. */
  opens(): Answer | undefined {
    const f = this.fault();
    if (f?.name !== 'outage' || this.until !== undefined || ++this.invites < OUTAGE_AFTER) return undefined;
    this.until = performance.now() + (f.ms ?? 3000);
    return MAINTENANCE;
  }
}

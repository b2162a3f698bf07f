import type http from 'node:http';
import type net from 'node:net';
import { httpModule } from '../shared/http-modules.js';
import { ACCEPT_ENCODING } from './codings.js';
import type { CallPlan } from './types.js';

/** What becomes of a request: an answer, or an error of the request itself. */
export interface RequestEvents {
  error(err: NodeJS.ErrnoException): void;
  response(res: http.IncomingMessage): void;
}

/**
 * Builds the request of a plan, headers and body ready (written into the request, which holds them until it has
 * a connection), and gives back the function that hands it its connection: the building is the toolkit's work
 * and happens before any phase is timed. The connection is the call's own and closed after it, unless the call
 * has a pool (pool.ts): then the server is asked to keep it open.
 */
export function prepareRequest(plan: CallPlan, on: RequestEvents): (conn: net.Socket) => void {
  const { opts, url, proxy, secure, payload } = plan;
  let handOver: ((err: Error | null, socket: net.Socket) => void) | undefined;
  const req = httpModule.request({
    createConnection: (_options, oncreate) => {
      handOver = oncreate;
      return undefined;
    },
    method: opts.method,
    host: plan.host,
    port: plan.port,
    // Plain HTTP through a proxy: the absolute URL, as a proxy reads it.
    path: proxy && !secure ? url.toString() : `${url.pathname}${url.search}`,
    headers: {
      host: url.host,
      ...(proxy?.authorization && !secure ? { 'proxy-authorization': proxy.authorization } : {}),
      accept: 'application/json',
      'accept-encoding': ACCEPT_ENCODING,
      connection: plan.opts.pool ? 'keep-alive' : 'close',
      ...(payload ? { 'content-type': plan.contentType, 'content-length': payload.length } : {}),
    },
  });
  req.on('error', (err: NodeJS.ErrnoException) => on.error(err));
  req.on('response', (res) => on.response(res));
  if (payload) req.end(payload);
  else req.end();
  return (conn) => handOver?.(null, conn);
}

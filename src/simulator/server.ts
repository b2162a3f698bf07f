import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { redactValue } from '../redact.js';
import { loadSpec, type Spec } from '../spec/load.js';
import { isEndpoint, type Method, type Params } from '../spec/types.js';
import { FAULTS, type FaultSetting, isFaultName } from './faults.js';
import { type Fixture, loadFixture } from './fixtures.js';
import { type Answer, refuse, SimState } from './state.js';

/** Largest request body read, in bytes; a longer one is refused with BODY_TOO_LARGE. */
export const MAX_BODY = 64 * 1024;

/**
 * `reference`: the simulator as documented. `legal`: a different but contract-keeping API: extra
 * undocumented fields, other refusal statuses, HTTP 200 on refusals, oldest-first history, 08-form numbers.
 */
export type Variant = 'reference' | 'legal';

export interface SimulatorOptions {
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @defaultValue 0 */
  port?: number;
  /** Serve the API under this path prefix, e.g. `/h2h`. @defaultValue '' */
  prefix?: string;
  fixture?: Fixture;
  /** Key of the suite's account (the demo account); the fixture's key when absent. */
  apiKey?: string;
  fault?: FaultSetting | null;
  /** Fixed delay added to every API answer, in milliseconds. @defaultValue 0 */
  latencyMs?: number;
  variant?: Variant;
  spec?: Spec;
}

export interface LogEntry {
  seq: number;
  method: string;
  path: string;
  endpoint?: string;
  /** Parameters as received, the key hidden. */
  params?: Params;
  httpStatus: number;
  ok?: boolean;
  status?: string;
  /** True when this invite request passed every check but money and slots: it could have been charged. */
  couldSucceed: boolean;
  /** Server-side time from the request's arrival to the last byte of the answer (ground truth for benchmarks). */
  durationMs?: number;
}

export interface Simulator {
  /** Base URL, prefix included, e.g. http://127.0.0.1:41234/h2h */
  url: string;
  apiKey: string;
  fixture: Fixture;
  state: SimState;
  log: LogEntry[];
  setFault(fault: FaultSetting | null): void;
  close(): Promise<void>;
}

const LOG_CAP = 20_000;
const ADMIN = '/__sim';

/** Starts the reference simulator; resolves when it listens. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const spec = opts.spec ?? loadSpec();
  const fixture = opts.fixture ?? loadFixture();
  const state = new SimState(spec, fixture, opts.apiKey);
  state.fault = opts.fault ?? null;
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const variant = opts.variant ?? 'reference';
  const log: LogEntry[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const seenRequests = new Set<string>();
  let seq = 0;

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  // requireHostHeader off: a request without Host gets the envelope from this code, not an empty 400 from Node.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug of the simulator itself: still the envelope, and the process goes on.
      if (!res.headersSent) send(res, refuse('INTERNAL_ERROR', `simulator error: ${(err as Error).message}`));
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => {
    const text = JSON.stringify({
      ok: false,
      status: 'MALFORMED_REQUEST',
      message: 'The HTTP request could not be parsed.',
    });
    // A request whose body framing breaks mid-way already has a response object: answer through it.
    const pending = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (pending && !pending.headersSent) {
      pending.shouldKeepAlive = false;
      pending.writeHead(400, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        connection: 'close',
      });
      pending.end(text);
    } else if (!pending && socket.writable) {
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    } else socket.destroy();
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    if (url.pathname.startsWith(`${ADMIN}/`)) {
      admin(req, res, url);
      return;
    }
    const method = req.method ?? '';
    const entry: LogEntry = { seq: ++seq, method, path: url.pathname, httpStatus: 0, couldSucceed: false };
    pushLog(entry);
    const arrived = performance.now();
    res.once('finish', () => {
      entry.durationMs = performance.now() - arrived;
    });
    const reply = (answer: Answer): void => {
      const shaped = variant === 'legal' ? legalVariant(answer) : answer;
      entry.httpStatus = shaped.http;
      entry.ok = shaped.body.ok as boolean;
      entry.status = shaped.body.status as string;
      send(res, shaped);
    };

    const rest =
      prefix && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : prefix ? '' : url.pathname;
    const match = /^\/api\/([a-z-]+)\/?$/.exec(rest);
    const endpoint = match?.[1];
    if (!endpoint || !isEndpoint(endpoint)) {
      drain(req);
      return reply(
        refuse(
          'NOT_FOUND',
          `No endpoint at ${url.pathname}; the API has ${prefix}/api/{invite-member,history-transaksi,cek-trx-id,saldo-user}.`,
        ),
      );
    }
    entry.endpoint = endpoint;
    if (method !== 'GET' && method !== 'POST') {
      drain(req);
      res.setHeader('allow', 'GET, POST');
      return reply(refuse('METHOD_NOT_ALLOWED', `${method} is not accepted; use GET or POST.`));
    }
    const parsed = await readParams(req, url, method);
    if ('refusal' in parsed) return reply(parsed.refusal);
    entry.params = redactValue(parsed.params);
    if (await transportFault(req, res, `${method} ${url.pathname} ${JSON.stringify(parsed.params)}`)) return;
    if (opts.latencyMs) await new Promise<void>((r) => later(opts.latencyMs ?? 0, r));
    if (res.destroyed) return;
    const handled = state.handle(endpoint, method, parsed.params);
    entry.couldSucceed = endpoint === 'invite-member' && handled.couldSucceed;
    reply(handled.answer);
  }

  /** Applies the active transport fault; true when it has taken over the answer. */
  async function transportFault(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestKey: string,
  ): Promise<boolean> {
    const f = state.fault;
    switch (f?.name) {
      case 'reset-first':
        if (seenRequests.has(requestKey)) return false;
        seenRequests.add(requestKey);
        req.socket.resetAndDestroy();
        return true;
      case 'latency':
        await new Promise<void>((r) => later(f.ms ?? 1500, r));
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
              res.once('drain', r);
              res.once('close', r);
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
          if (i < bytes.length) later(f.ms ?? 200, drip);
          else res.end();
        };
        drip();
        return true;
      }
      default:
        return false;
    }
  }

  function admin(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    drain(req);
    const [status, body] = adminAnswer(req.method ?? '', url);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  function adminAnswer(method: string, url: URL): [number, unknown] {
    if (url.pathname === `${ADMIN}/faults`) return [200, { active: state.fault, catalog: FAULTS }];
    if (url.pathname === `${ADMIN}/log`) return [200, log];
    if (url.pathname === `${ADMIN}/fault` && method === 'POST') {
      const name = url.searchParams.get('name') ?? '';
      const ms = url.searchParams.get('ms');
      if (name === '' || name === 'none') {
        state.fault = null;
        return [200, { active: null }];
      }
      if (!isFaultName(name)) return [400, { error: `unknown fault ${name}; see ${ADMIN}/faults` }];
      state.fault = { name, ...(ms ? { ms: Number(ms) } : {}) };
      return [200, { active: state.fault }];
    }
    return [404, { error: `admin paths: ${ADMIN}/faults, ${ADMIN}/log, POST ${ADMIN}/fault?name=NAME[&ms=N]` }];
  }

  function pushLog(entry: LogEntry): void {
    log.push(entry);
    if (log.length > LOG_CAP) log.splice(0, log.length - LOG_CAP);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const demo = fixture.accounts.find((a) => a.id === fixture.suite.account);
  return {
    url: `http://${host}:${addr.port}${prefix}`,
    apiKey: opts.apiKey ?? demo?.api_key ?? '',
    fixture,
    state,
    log,
    setFault(fault) {
      state.fault = fault;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function send(res: http.ServerResponse, answer: Answer): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.http, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Reads what a client sends and discards it, so that an early answer does not reset the connection. */
function drain(req: http.IncomingMessage): void {
  req.resume();
}

type ParamsOrRefusal = { params: Params } | { refusal: Answer };

/**
 * Parameters of a request: the query string (GET and POST), plus on POST a JSON object or a form-encoded
 * body. A name given in both places with different values is a conflict for the fold to find.
 */
async function readParams(req: http.IncomingMessage, url: URL, method: Method): Promise<ParamsOrRefusal> {
  const params: Params = Object.create(null) as Params;
  const add = (k: string, v: unknown): void => {
    const prev = params[k];
    params[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  };
  for (const [k, v] of url.searchParams) add(k, v);
  const read = await readBody(req);
  if (read === 'too-large') return { refusal: refuse('BODY_TOO_LARGE', `The request body is over ${MAX_BODY} bytes.`) };
  if (method === 'GET' || read.length === 0) return { params };
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) {
    let body: unknown;
    try {
      body = JSON.parse(read.toString('utf8'));
    } catch (err) {
      return { refusal: refuse('MALFORMED_JSON', `The body is not valid JSON: ${(err as Error).message}`) };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return {
        refusal: refuse('MALFORMED_JSON', 'The body must be a JSON object whose keys are the parameter names.'),
      };
    }
    for (const [k, v] of Object.entries(body)) add(k, v);
    return { params };
  }
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(read.toString('utf8'))) add(k, v);
    return { params };
  }
  return {
    refusal: refuse(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type '${type || '(none)'}' is not read; send application/json or application/x-www-form-urlencoded.`,
    ),
  };
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      else chunks.push(c);
      // Past 16x the cap the client is not worth reading to the end: answer and close.
      if (size > MAX_BODY * 16) {
        req.pause();
        resolve('too-large');
      }
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
  });
}

/** The `legal` variant: the same outcomes, shaped the way another contract-keeping provider might shape them. */
function legalVariant(answer: Answer): Answer {
  const body = structuredClone(answer.body);
  if (body.ok === false) {
    return { http: 200, body: { ...body, status: `GAGAL_${String(body.status)}`, error_code: answer.http } };
  }
  body.server_time = '2026-11-22T00:00:00Z';
  const to08 = (n: unknown): unknown => (typeof n === 'string' && n.startsWith('62') ? `0${n.slice(2)}` : n);
  if (Array.isArray(body.data)) {
    body.data = [...body.data].reverse().map((r: Record<string, unknown>) => ({
      ...r,
      manager_number: to08(r.manager_number),
      member_number: to08(r.member_number),
      channel: 'h2h',
    }));
  } else if (body.data && typeof body.data === 'object') {
    body.data = { ...(body.data as object), checked_at: '2026-11-22T00:00:00Z' };
  }
  if (body.detail && typeof body.detail === 'object') body.detail = { ...(body.detail as object), quota: '10GB' };
  return { http: answer.http, body };
}

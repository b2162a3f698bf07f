import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import { type ApiModel, loadApiModel } from '../openapi/load.js';
import { type Endpoint, isEndpoint, type Params } from '../openapi/types.js';
import type { RefusalKind, Vocabulary } from '../reading/index.js';
import { redactValue, registerSecret } from '../redact.js';
import { listen } from '../shared/listen.js';
import { TokenBucket } from '../shared/token-bucket.js';
import { ADMIN, adminAnswer } from './admin.js';
import { type Answer, refuse } from './answer.js';
import { type FaultSetting, faultNamed } from './faults/index.js';
import { type Fixture, loadFixture } from './fixtures.js';
import { contentTypeOf, limitsOf, neighbourMsOf, REFERENCE, type Reading, rateLimitOf } from './legal.js';
import { drain, readParams } from './params.js';
import { presentAnswer } from './present.js';
import { type LogEntry, RequestLog } from './request-log.js';
import { SimState } from './state.js';
import { applyTransportFault, Outage, prepareTransportFault } from './transport-faults.js';
import { OWN_SOURCE, ServedVocabulary, type ShapedValue, type World, withProducts } from './vocabulary.js';

export type { LogEntry } from './request-log.js';

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
  /** The reading of what the provider leaves open (legal.ts). @defaultValue the reference reading */
  reading?: Reading;
  /**
   * A learned provider's own words, codes, fields, forms, products and checks (a reading file's vocabulary),
   * served in place of the simulator's own wherever it has a value.
   */
  vocabulary?: Vocabulary;
  api?: ApiModel;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * The token the admin endpoints (`/__sim/...`) require as `Authorization: Bearer <token>`. On loopback (the
   * default) they are open unless one is given; on any other address one is made when none is given.
   */
  adminToken?: string;
}

export interface Simulator {
  /** Base URL, prefix included, e.g. http://127.0.0.1:41234/h2h */
  url: string;
  apiKey: string;
  /** The admin endpoints' token, when they need one. */
  adminToken?: string;
  fixture: Fixture;
  state: SimState;
  reading: Reading;
  /** The request log, oldest first (a copy of the ring). */
  readonly log: LogEntry[];
  setFault(fault: FaultSetting | null): void;
  close(): Promise<void>;
}

/** Starts the reference simulator; resolves when it listens. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const api = opts.api ?? loadApiModel();
  const fixture = withProducts(opts.fixture ?? loadFixture(), opts.vocabulary);
  const reading = opts.reading ?? REFERENCE;
  const day = opts.vocabulary?.day?.['utc-offset-minutes'];
  const state = new SimState(api, fixture, opts.apiKey, reading, day);
  // Every key the simulator accepts is hidden in its request log under whatever parameter name it came (the one
  // redaction: a key sent as `code`, `month` or `limit` is still the key).
  registerSecret(opts.apiKey);
  for (const a of fixture.accounts) registerSecret(a.api_key);
  state.fault = opts.fault ?? null;
  const learned = opts.vocabulary ? new ServedVocabulary(opts.vocabulary, reading, fixture.forms) : undefined;
  if (learned) state.accepts = (endpoint, param, value) => learned.accepts(api, endpoint, param, value);
  const world = worldOf(api, fixture, state, opts.apiKey);
  prepareTransportFault(state.fault);
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const host = opts.host ?? '127.0.0.1';
  const adminToken = opts.adminToken ?? (isLoopback(host) ? undefined : randomBytes(18).toString('base64url'));
  const handler = new SimulatorHandler({ api, state, reading, learned, world, prefix, adminToken, opts });
  // The `neighbour` reading: another client of the same account, inviting on its own schedule.
  const every = neighbourMsOf(reading);
  const neighbour = every ? setInterval(() => void state.neighbourInvite(), every) : undefined;
  neighbour?.unref();
  const { server, sockets } = serverFor(opts.tls, handler.serve);

  const address = await listen(server, host, opts.port ?? 0, '--listen');
  const demo = fixture.accounts.find((a) => a.id === fixture.suite.account);
  return {
    url: `${opts.tls ? 'https' : 'http'}://${address}${prefix}`,
    apiKey: opts.apiKey ?? demo?.api_key ?? '',
    ...(adminToken ? { adminToken } : {}),
    fixture,
    state,
    reading,
    get log() {
      return handler.log.entries();
    },
    setFault(fault) {
      prepareTransportFault(fault);
      state.fault = fault;
    },
    close: () =>
      new Promise<void>((resolve) => {
        handler.clearTimers();
        clearInterval(neighbour);
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** The world a learned provider's checks look at: the accounts by key, the trx_ids used, the products. */
function worldOf(api: ApiModel, fixture: Fixture, state: SimState, apiKey: string | undefined): World {
  const keys = new Map(
    fixture.accounts.map((a) => [apiKey && a.id === fixture.suite.account ? apiKey : a.api_key, a.id]),
  );
  return {
    api,
    accountOf: (key) => keys.get(key),
    used: (account, trxId) => state.transactions(account, trxId).length > 0,
    product: (wanted) =>
      fixture.products.find(
        (x) => x.code.toLowerCase() === wanted.toLowerCase() || x.name.toLowerCase() === wanted.toLowerCase(),
      ),
  };
}

/** The HTTP(S) server over `serve`, with the sockets it holds open (close() destroys them). */
function serverFor(
  tls: SimulatorOptions['tls'],
  serve: http.RequestListener,
): { server: http.Server; sockets: Set<Socket> } {
  // requireHostHeader off: a request without Host gets the envelope from this code, not an empty 400 from Node.
  const server = tls
    ? https.createServer({ requireHostHeader: false, cert: tls.cert, key: tls.key }, serve)
    : http.createServer({ requireHostHeader: false }, serve);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => answerUnparsable(socket as Socket));
  return { server, sockets };
}

/** What the simulator's requests are handled with, fixed when it starts. */
interface HandlerContext {
  api: ApiModel;
  state: SimState;
  reading: Reading;
  learned: ServedVocabulary | undefined;
  world: World;
  /** The path prefix, without a trailing slash ('' for none). */
  prefix: string;
  adminToken: string | undefined;
  /** The options the simulator was started with (`latencyMs` is read per request). */
  opts: SimulatorOptions;
}

/** Answers a request: shapes the answer, logs it, and sends it (a fault's rewrite last). */
type Replier = (
  answer: Answer,
  rewrite?: (body: Record<string, unknown>) => void,
  sent?: Params,
  kind?: RefusalKind,
  value?: ShapedValue,
) => void;

/** One API request in hand: what came, its log entry, and how it is answered. */
interface Arrival {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  method: 'GET' | 'POST';
  entry: LogEntry;
  reply: Replier;
}

/** The simulator's request handling: the admin endpoints, the API's door (rate limit, path, method), the rules. */
class SimulatorHandler {
  readonly log = new RequestLog();
  private seq = 0;
  /** The requests each connection has carried so far. */
  private readonly carried = new WeakMap<Socket, number>();
  /**
   * The invites carried out here, by trx_id, with what they sent: their history records take the provider's own
   * invites' fields, and carry back what those carried back (the name an invite was sent with, say).
   */
  private readonly own = new Map<string, Params>();
  private readonly seenRequests = new Set<string>();
  private readonly outage = new Outage(() => this.c.state.fault);
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly limit: ReturnType<typeof rateLimitOf>;
  private readonly bucket: TokenBucket | undefined;
  private readonly contentType: string;

  constructor(private readonly c: HandlerContext) {
    this.limit = rateLimitOf(c.reading);
    this.bucket = this.limit ? new TokenBucket(this.limit.perSecond, this.limit.burst) : undefined;
    this.contentType = contentTypeOf(c.reading);
  }

  readonly serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.handle(req, res).catch((err: unknown) => {
      // A bug of the simulator itself: still the envelope, and the process goes on.
      if (!res.headersSent) this.send(res, refuse('INTERNAL_ERROR', `simulator error: ${(err as Error).message}`));
      else res.destroy();
    });
  };

  /** Cancels what is still to come (delayed answers, transport faults' timers). */
  clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private readonly later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  };

  private send(res: http.ServerResponse, answer: Answer, acceptEncoding?: string): void {
    if (res.destroyed || res.headersSent) return;
    const text = Buffer.from(JSON.stringify(answer.body));
    const coding = codingFor(this.c.reading, acceptEncoding);
    const bytes = coding ? ENCODE[coding](text) : text;
    res.writeHead(answer.http, {
      'content-type': this.contentType,
      'content-length': bytes.length,
      ...(coding ? { 'content-encoding': coding, vary: 'Accept-Encoding' } : {}),
      ...answer.headers,
    });
    res.end(bytes);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    if (url.pathname.startsWith(`${ADMIN}/`)) return this.handleAdmin(req, res, url);
    const method = req.method ?? '';
    const entry = this.logEntry(method, url, res);
    const endpoint = this.endpointAt(url.pathname);
    const reply = this.replier(req, res, entry, endpoint);
    if (this.bucket && this.limit && !this.bucket.tryTake()) {
      drain(req);
      const wait = Math.max(1, Math.ceil(this.bucket.waitMs() / 1000));
      return reply({
        ...refuse('RATE_LIMITED', `Too many requests; try again in ${wait} s.`),
        http: this.limit.status,
        headers: { 'retry-after': String(wait) },
      });
    }
    if (!endpoint || !isEndpoint(endpoint)) {
      drain(req);
      return reply(
        refuse(
          'NOT_FOUND',
          `No endpoint at ${url.pathname}; the API has ${this.c.prefix}/api/{invite-member,history-transaksi,cek-trx-id,saldo-user}.`,
        ),
      );
    }
    entry.endpoint = endpoint;
    if (method !== 'GET' && method !== 'POST') {
      drain(req);
      res.setHeader('allow', 'GET, POST');
      return reply(refuse('METHOD_NOT_ALLOWED', `${method} is not accepted; use GET or POST.`));
    }
    return this.handleApi({ req, res, url, method, entry, reply }, endpoint);
  }

  private handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    drain(req);
    const [status, body] = adminAllowed(req.headers.authorization, this.c.adminToken)
      ? adminAnswer(req.method ?? '', url, this.c.state, this.log)
      : [401, { error: `the admin endpoints need 'Authorization: Bearer <the simulator's admin token>'` }];
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  /** A new entry of the request log, timed until its answer is sent. */
  private logEntry(method: string, url: URL, res: http.ServerResponse): LogEntry {
    const entry: LogEntry = { seq: ++this.seq, method, path: url.pathname, httpStatus: 0, couldSucceed: false };
    const { socket } = res;
    const carried = socket ? (this.carried.get(socket) ?? 0) : 0;
    if (socket) this.carried.set(socket, carried + 1);
    entry.keptConnection = carried > 0;
    this.log.push(entry);
    const arrived = performance.now();
    entry.arrivedMs = arrived;
    res.once('finish', () => {
      entry.durationMs = performance.now() - arrived;
    });
    return entry;
  }

  /** The endpoint a path names under the prefix (any word; isEndpoint tells whether the API has it). */
  private endpointAt(pathname: string): string | undefined {
    const { prefix } = this.c;
    const rest = prefix && pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : prefix ? '' : pathname;
    return /^\/api\/([a-z-]+)\/?$/.exec(rest)?.[1];
  }

  private replier(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    entry: LogEntry,
    endpoint: string | undefined,
  ): Replier {
    return (answer, rewrite, sent = {}, kind, value) => {
      const at = endpoint && isEndpoint(endpoint) ? endpoint : undefined;
      const served = this.c.learned
        ? this.serveLearned(this.c.learned, answer, at, sent, kind, value)
        : { answer: presentAnswer(answer, at, this.c.reading), source: OWN_SOURCE };
      const shaped = { ...served.answer, headers: { ...served.answer.headers, 'h2h-source': served.source } };
      // A fault's rewrite comes last: the reading shapes the answer, the fault breaks it.
      rewrite?.(shaped.body);
      entry.source = served.source;
      entry.httpStatus = shaped.http;
      entry.ok = shaped.body.ok as boolean;
      entry.status = shaped.body.status as string;
      this.send(res, shaped, req.headers['accept-encoding']);
    };
  }

  /** A GET or POST to an endpoint of the API: its parameters, the transport faults and latency, then the rules. */
  private async handleApi(a: Arrival, endpoint: Endpoint): Promise<void> {
    const { req, res, url, method, entry, reply } = a;
    const { state, reading, opts } = this.c;
    const parsed = await readParams(req, url, method, {
      form: reading['post-body'] === 'json+form',
      // Fault `post-body-ignored`.
      ignoreBody: state.fault?.name === 'post-body-ignored',
    });
    if ('refusal' in parsed) return reply(parsed.refusal, undefined, undefined, parsed.kind);
    entry.params = redactValue(parsed.params);
    const requestKey = `${method} ${url.pathname} ${JSON.stringify(parsed.params)}`;
    const seen = this.seenRequests;
    // Transport fault `outage`: a maintenance window.
    const closed = this.outage.now();
    if (closed) return reply(closed);
    if (await applyTransportFault(state.fault, req, res, { requestKey, seen, later: this.later })) return;
    if (opts.latencyMs) await new Promise<void>((r) => this.later(opts.latencyMs ?? 0, r));
    if (res.destroyed) return;
    const params = this.readingChecks(endpoint, parsed.params, reply);
    if (params) return this.carryOut(a, endpoint, params);
  }

  /**
   * The reading's checks before the simulator's rules: the params to carry out, or undefined when refused (the
   * refusal sent).
   */
  private readingChecks(endpoint: Endpoint, params: Params, reply: Replier): Params | undefined {
    const { api, reading, learned, world } = this.c;
    // The `max-limit=N:refuse` reading: a limit above the maximum is refused (a learned reading checks it in order).
    const limits = limitsOf(reading);
    if (!learned && limits.refuse && endpoint === 'history-transaksi') {
      const limit = Number(api.foldRequest(endpoint, params).params.limit);
      if (limit > limits.maxLimit) {
        reply(refuse('INVALID_LIMIT', `limit must be at most ${limits.maxLimit}.`), undefined, params);
        return undefined;
      }
    }
    if (!learned) return params;
    // The provider's checks first: what it refuses, in the order it checks, and how it reads what it accepts.
    const checked = learned.check(endpoint, params, world);
    if (!('kind' in checked)) return checked.params;
    reply(learned.ownRefusal(checked.kind), undefined, params, checked.kind, checked.value);
    return undefined;
  }

  /** The simulator's rules carried out, and their answer sent (a fault's rewrite on it). */
  private async carryOut({ method, entry, reply }: Arrival, endpoint: Endpoint, params: Params): Promise<void> {
    const { state } = this.c;
    const handled = await state.handle(endpoint, params, method);
    if (endpoint === 'invite-member' && handled.answer.body.ok === true)
      this.own.set(String(handled.answer.body.trx_id), params);
    entry.couldSucceed = endpoint === 'invite-member' && handled.couldSucceed;
    // Transport fault `invite-hang`: the invite was carried out, and its answer never comes.
    if (state.fault?.name === 'invite-hang' && endpoint === 'invite-member') return;
    // Transport fault `outage`: the invite that opens the window was carried out, and answered 503.
    const opened = endpoint === 'invite-member' && handled.answer.body.ok === true ? this.outage.opens() : undefined;
    if (opened) return reply(opened);
    const fault = state.fault ? faultNamed(state.fault.name) : undefined;
    const rewrite = handled.answer.body.ok === true ? fault?.answer : fault?.refusal;
    reply(
      handled.answer,
      rewrite &&
        ((body) => rewrite(body, { endpoint, method, params: handled.params, status: handled.answer.body.status })),
      params,
    );
  }

  /**
   * An answer of the simulator's rules as the learned provider words and shapes it (its own where none is learned),
   * with where each part came from (the `h2h-source` header, sourceOf).
   */
  private serveLearned(
    l: ServedVocabulary,
    answer: Answer,
    at: Endpoint | undefined,
    sent: Params,
    kind?: RefusalKind,
    value?: ShapedValue,
  ): { answer: Answer; source: string } {
    const { api, reading } = this.c;
    if (answer.body.ok === false) {
      const k = kind ?? l.kindOf(answer, sent);
      // The provider's word for the kind (for a value of a shape it words apart, that shape's).
      const theirs = k ? l.refusal(k, at, value) : undefined;
      if (theirs)
        return {
          answer: { ...theirs.answer, ...(answer.headers ? { headers: answer.headers } : {}) },
          source: l.sourceOf({ refusal: k, entry: theirs.entry }),
        };
      return { answer: presentAnswer(answer, at, reading), source: l.sourceOf(k ? { refusal: k } : {}) };
    }
    // The simulator's own undocumented fields give way to the provider's.
    const plain = presentAnswer(answer, at, { ...reading, extra: 'none' });
    return at
      ? { answer: l.success(api, plain, at, this.own, sent).answer, source: l.sourceOf({ success: at }) }
      : { answer: plain, source: l.sourceOf({}) };
  }
}

/** A request Node could not parse: still the envelope, 400, and the connection closed. */
function answerUnparsable(socket: Socket): void {
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
}

/**
 * Each coding as a server applies it on the fly: Brotli at quality 4, as servers do for dynamic answers (Node's
 * default, 11, is for static files: 5 ms of CPU for a 2 KB answer here, against 0.06 ms at 4).
 */
const ENCODE: Record<'gzip' | 'deflate' | 'br', (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
};

/**
 * The content coding of an answer under the `content-coding` knob: the reading's, when the request sent no
 * Accept-Encoding (any coding is acceptable then) or lists it (or `*`) without q=0; else none.
 */
export function codingFor(r: Reading, acceptEncoding: string | undefined): 'gzip' | 'deflate' | 'br' | undefined {
  const coding = r['content-coding'];
  if (coding !== 'gzip' && coding !== 'deflate' && coding !== 'br') return undefined;
  if (acceptEncoding === undefined) return coding;
  const listed = acceptEncoding.split(',').map((item) => {
    const [name = '', ...params] = item.trim().toLowerCase().split(';');
    return { name: name.trim(), zero: params.some((q) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(q)) };
  });
  return listed.some((c) => (c.name === coding || c.name === '*') && !c.zero) ? coding : undefined;
}

/** Whether a host to bind is a loopback address (the admin endpoints are open there unless a token is set). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** An admin request passes with no token set, or with `Authorization: Bearer <token>` (compared in constant time). */
function adminAllowed(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(/^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

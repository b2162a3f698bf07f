import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Socket } from 'node:net';
import { type ApiModel, loadApiModel } from '../openapi/load.js';
import type { Vocabulary } from '../reading/index.js';
import { registerSecret } from '../redact.js';
import { httpModule, httpsModule } from '../shared/http-modules.js';
import { listen } from '../shared/listen.js';
import type { FaultSetting } from './faults/index.js';
import { type Fixture, loadFixture } from './fixtures.js';
import { SimulatorHandler } from './handler.js';
import type { World } from './learned-checks.js';
import { neighbourMsOf, REFERENCE, type Reading } from './legal.js';
import type { LogEntry } from './request-log.js';
import { SimState } from './state.js';
import { prepareTransportFault } from './transport-faults.js';
import { ServedVocabulary, withProducts } from './vocabulary.js';

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
  if (learned) state.accepts = (endpoint, param, value) => learned.checks.accepts(api, endpoint, param, value);
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
    ? httpsModule.createServer({ requireHostHeader: false, cert: tls.cert, key: tls.key }, serve)
    : httpModule.createServer({ requireHostHeader: false }, serve);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => answerUnparsable(socket as Socket));
  return { server, sockets };
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

/** Whether a host to bind is a loopback address (the admin endpoints are open there unless a token is set). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

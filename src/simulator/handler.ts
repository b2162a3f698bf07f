import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { ApiModel } from '../openapi/load.js';
import { type Endpoint, isEndpoint, type Params } from '../openapi/types.js';
import { redactValue } from '../redact.js';
import { TokenBucket } from '../shared/token-bucket.js';
import { ADMIN, adminAnswer } from './admin.js';
import { refuse } from './answer.js';
import { faultNamed } from './faults/index.js';
import type { World } from './learned-checks.js';
import { limitsOf, type Reading, rateLimitOf } from './legal.js';
import { drain, readParams } from './params.js';
import { type Replier, SimReplies } from './replies.js';
import { type LogEntry, RequestLog } from './request-log.js';
import type { SimState } from './state.js';
import { applyTransportFault, Outage } from './transport-faults.js';
import type { ServedVocabulary } from './vocabulary.js';

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
  /** The options the simulator was started with (its `latencyMs` is read per request). */
  opts: { readonly latencyMs?: number | undefined };
}

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
export class SimulatorHandler {
  readonly log = new RequestLog();
  private readonly replies: SimReplies;
  private readonly seenRequests = new Set<string>();
  private readonly outage = new Outage(() => this.c.state.fault);
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly limit: ReturnType<typeof rateLimitOf>;
  private readonly bucket: TokenBucket | undefined;

  constructor(private readonly c: HandlerContext) {
    this.limit = rateLimitOf(c.reading);
    this.bucket = this.limit ? new TokenBucket(this.limit.perSecond, this.limit.burst) : undefined;
    this.replies = new SimReplies(c.api, c.reading, c.learned);
  }

  readonly serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.handle(req, res).catch((err: unknown) => {
      // A bug of the simulator itself: still the envelope, and the process goes on.
      if (!res.headersSent)
        this.replies.send(res, refuse('INTERNAL_ERROR', `simulator error: ${(err as Error).message}`));
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

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    if (url.pathname.startsWith(`${ADMIN}/`)) return this.handleAdmin(req, res, url);
    const method = req.method ?? '';
    const entry = this.log.open(method, url, res);
    const endpoint = this.endpointAt(url.pathname);
    const reply = this.replies.replier(req, res, entry, endpoint);
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

  /** The endpoint a path names under the prefix (any word; isEndpoint tells whether the API has it). */
  private endpointAt(pathname: string): string | undefined {
    const { prefix } = this.c;
    const rest = prefix && pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : prefix ? '' : pathname;
    return /^\/api\/([a-z-]+)\/?$/.exec(rest)?.[1];
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
    const checked = learned.checks.check(endpoint, params, world);
    if (!('kind' in checked)) return checked.params;
    reply(learned.ownRefusal(checked.kind), undefined, params, checked.kind, checked.value);
    return undefined;
  }

  /** The simulator's rules carried out, and their answer sent (a fault's rewrite on it). */
  private async carryOut({ method, entry, reply }: Arrival, endpoint: Endpoint, params: Params): Promise<void> {
    const { state } = this.c;
    const handled = await state.handle(endpoint, params, method);
    if (endpoint === 'invite-member' && handled.answer.body.ok === true)
      this.replies.carriedOut(String(handled.answer.body.trx_id), params);
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
}

/** An admin request passes with no token set, or with `Authorization: Bearer <token>` (compared in constant time). */
function adminAllowed(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(/^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

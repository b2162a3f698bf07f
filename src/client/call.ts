import type http from 'node:http';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Exchange } from '../openapi/types.js';
import { BodyReader } from './body.js';
import { ConnectingCall, codeOf } from './connecting-call.js';
import { phasesOf, sumOf } from './phases.js';
import { prepareRequest } from './request.js';
import type { TransportReason } from './transport.js';
import type { CallPlan, CallResult, Phases } from './types.js';

type Settled = Omit<CallResult, 'phases' | 'totalMs' | 'truncated'>;

/**
 * One call, one socket event at a time, as blackbox_exporter's prober/http.go traces a round trip: the call
 * holds the times of its events (Marks) and has one method per event, each taking its time first thing. Its
 * connection is ConnectingCall's (connecting-call.ts: the name, connect and, for HTTPS, the handshake, each phase
 * ending with its own event); here the request (request.ts) goes and the answer and its body (body.ts) are read.
 * The first outcome settles it (an answer, a failure, or the deadline): the connection is destroyed, or with a
 * pool (pool.ts) put back when the answer was read whole and the server keeps it, and later events change nothing.
 */
export class TimedCall extends ConnectingCall {
  private readonly timer: NodeJS.Timeout;
  /** The server keeps the connection open after the answer (Node's 'free' on it): it can go back to the pool. */
  private reusable = false;
  private body: BodyReader | undefined;

  constructor(
    plan: CallPlan,
    private readonly resolve: (result: CallResult) => void,
  ) {
    super(plan);
    const { timeoutMs } = plan;
    this.timer = setTimeout(() => this.fail('timeout', `no complete answer within ${timeoutMs} ms`), timeoutMs);
  }

  /** The request built, and the function that assigns it its socket. */
  protected request(): (conn: net.Socket) => void {
    const handOver = prepareRequest(this.plan, {
      error: (err) => this.onRequestError(err),
      response: (res) => this.onResponse(res),
    });
    return (conn) => {
      // Before the HTTP parser's own listener: each chunk is timed as it arrives, before it is parsed.
      this.listen(conn, 'data', () => this.onData());
      if (this.plan.opts.pool)
        this.listen(conn, 'free', () => {
          this.reusable = true;
        });
      handOver(conn);
    };
  }

  /** Bytes arrived: the first byte of the answer, or a later one. */
  private onData(): void {
    this.marks.lastData = performance.now();
    this.marks.firstByte ||= this.marks.lastData;
  }

  private onRequestError(err: NodeJS.ErrnoException): void {
    if (!this.settled) this.fail(this.marks.sent ? 'reset' : 'connect', this.onKept(codeOf(err)));
  }

  /** The head of the answer is parsed: its body is read as it comes. */
  private onResponse(res: http.IncomingMessage): void {
    const { proxy } = this.plan;
    // The proxy's own refusal (plain HTTP through it): nothing reached the target.
    if (proxy && (res.statusCode === 407 || res.headers['proxy-authenticate'])) {
      res.resume();
      this.fail('connect', `proxy ${proxy.label} refused the request: HTTP 407 ${res.statusMessage ?? ''}`.trim());
      return;
    }
    // With a declared length, the body ends at the chunk that completes it (not at the stream's later 'end').
    const body = new BodyReader(this.plan.bodyCap, Number(res.headers['content-length'] ?? Number.NaN));
    this.body = body;
    res.on('data', (chunk: Buffer) => this.onBodyData(res, body, chunk));
    res.on('end', () => this.onBodyEnd(res, body));
    res.on('error', (err) => {
      if (!body.truncated) this.fail('reset', `body: ${err.message}`);
    });
    res.on('aborted', () => {
      if (!body.truncated) this.fail('reset', 'connection closed before the body ended');
    });
  }

  /** A chunk of the body: its bytes came with the socket's last data event, timed before any parsing. */
  private onBodyData(res: http.IncomingMessage, body: BodyReader, chunk: Buffer): void {
    const at = this.marks.lastData || performance.now();
    const taken = body.take(chunk);
    if (taken === 'whole' || taken === 'cut') this.marks.end = at;
    if (taken === 'cut') this.complete(res, body);
  }

  /** The body's end. */
  private onBodyEnd(res: http.IncomingMessage, body: BodyReader): void {
    this.marks.end ||= this.marks.lastData || performance.now();
    // Read after the socket events already due: another call's last byte is timed before this parsing.
    setImmediate(() => this.complete(res, body));
  }

  private complete(res: http.IncomingMessage, body: BodyReader): void {
    this.answer(res, body).catch((err: Error) => this.fail('reset', err.message));
  }

  /** The answer read (the request's time has ended with its last byte, before any parsing of ours). */
  private async answer(res: http.IncomingMessage, body: BodyReader): Promise<void> {
    const { opts, url, bodyCap } = this.plan;
    const { fields, undecodable } = await body.read(res.headers['content-encoding']);
    const exchange: Exchange = {
      endpoint: opts.endpoint,
      method: opts.method,
      params: opts.params,
      url: url.toString(),
      ...(opts.body ? { sentBody: opts.body } : {}),
      httpStatus: res.statusCode ?? 0,
      contentType: String(res.headers['content-type'] ?? ''),
      headers: Object.fromEntries(
        Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
      ),
      ...fields,
      durationMs: sumOf(this.phases()),
    };
    this.finish(
      body.truncated
        ? { exchange, error: { reason: 'body_too_large', message: `body longer than ${bodyCap} bytes` } }
        : undecodable
          ? { exchange, error: { reason: undecodable.reason, message: undecodable.message } }
          : { exchange },
    );
  }

  private phases(): Phases {
    return phasesOf(this.marks, this.t0, this.plan.secure);
  }

  protected fail(reason: TransportReason, message: string): void {
    this.finish({ error: { reason, message } });
  }

  /** The first outcome settles the call; the request's time ends with its last byte read (or its failure). */
  private finish(outcome: Settled): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    for (const off of this.detach.splice(0)) off();
    // A connection the server keeps, its answer read whole, waits for the run's next call; any other is closed.
    const { pool } = this.plan.opts;
    if (pool && this.socket && this.reusable && outcome.exchange && !outcome.error && !this.body?.truncated)
      pool.give(this.poolKey, this.socket);
    else this.socket?.destroy();
    const p = this.phases();
    this.resolve({
      ...outcome,
      ...(this.tlsInfo ? { tls: this.tlsInfo } : {}),
      phases: p,
      totalMs: outcome.exchange ? sumOf(p) : performance.now() - this.t0,
      truncated: this.body?.truncated ?? false,
    });
  }
}

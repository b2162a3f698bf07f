import { lookup } from 'node:dns';
import type http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import type { Exchange } from '../openapi/types.js';
import { BodyReader } from './body.js';
import { startHandshake, tlsInfoOf } from './handshake.js';
import { type Marks, newMarks, phasesOf, sumOf } from './phases.js';
import { prepareRequest } from './request.js';
import { reasonOfCode, type TransportReason, tlsAdvice } from './transport.js';
import { openTunnel } from './tunnel.js';
import type { CallPlan, CallResult, Phases, TlsInfo } from './types.js';

type Settled = Omit<CallResult, 'phases' | 'totalMs' | 'truncated'>;

const codeOf = (err: NodeJS.ErrnoException): string => `${err.code ?? err.name}: ${err.message}`;

/**
 * One call, one socket event at a time, as blackbox_exporter's prober/http.go traces a round trip: the call
 * holds the times of its events (Marks) and has one method per event, each taking its time first thing. It
 * resolves the name, connects and (for HTTPS) shakes hands itself, so that each phase ends with its own event;
 * the proxy tunnel (tunnel.ts), the handshake (handshake.ts), the request (request.ts) and the body (body.ts) are
 * parts it drives. The first outcome settles it (an answer, a failure, or the deadline): the connection is
 * destroyed, or with a pool (pool.ts) put back when the answer was read whole and the server keeps it, and later
 * events change nothing.
 */
export class TimedCall {
  private readonly t0 = performance.now();
  private readonly marks: Marks = newMarks();
  private readonly timer: NodeJS.Timeout;
  private settled = false;
  private socket: net.Socket | undefined;
  /** The connection came from the pool (pool.ts): its failures say so. */
  private reused = false;
  /** The server keeps the connection open after the answer (Node's 'free' on it): it can go back to the pool. */
  private reusable = false;
  /** Removes this call's listeners from its connection's sockets (a pooled connection goes back without them). */
  private readonly detach: (() => void)[] = [];
  private tlsInfo: TlsInfo | undefined;
  private body: BodyReader | undefined;

  constructor(
    private readonly plan: CallPlan,
    private readonly resolve: (result: CallResult) => void,
  ) {
    const { timeoutMs } = plan;
    this.timer = setTimeout(() => this.fail('timeout', `no complete answer within ${timeoutMs} ms`), timeoutMs);
  }

  /** Where the call's connection goes, for the pool: the proxy, whether TLS, and the target. */
  private get poolKey(): string {
    const { proxy, secure, host, port } = this.plan;
    return `${proxy?.label ?? ''}|${secure ? 'tls' : 'tcp'}|${host}:${port}`;
  }

  /** Sends on an idle connection of the pool when there is one, else opens a new one. */
  start(): void {
    const idle = this.plan.opts.pool?.take(this.poolKey);
    if (idle) this.reuse(idle);
    else this.open();
  }

  /** Listens to a socket of this call until the call ends (a pooled connection goes back without it). */
  private listen(socket: net.Socket, event: 'error' | 'data' | 'free', fn: (err: NodeJS.ErrnoException) => void): void {
    socket.on(event, fn);
    this.detach.push(() => socket.off(event, fn));
  }

  /**
   * A connection of the pool: no name, connect or handshake to time (those phases are 0), its certificate the
   * one verified when it was opened. The request goes at once.
   */
  private reuse(socket: net.Socket): void {
    this.reused = true;
    this.socket = socket;
    Object.assign(this.marks, { resolved: this.t0, connected: this.t0, secured: this.plan.secure ? this.t0 : 0 });
    if (this.plan.secure) this.tlsInfo = tlsInfoOf(socket as tls.TLSSocket);
    this.listen(socket, 'error', (err) => this.onSocketError(err));
    const send = this.request();
    this.marks.sent = performance.now();
    send(socket);
  }

  /** Resolves the name of the first hop (the proxy, or the target); an IP address needs none. */
  private open(): void {
    const { hop } = this.plan;
    const family = net.isIP(hop.host);
    if (family) {
      this.marks.resolved = this.t0;
      this.connect(hop.host, family);
    } else lookup(hop.host, (err, address, fam) => this.onLookup(err, address, fam));
  }

  /** The name resolved, or not. */
  private onLookup(err: NodeJS.ErrnoException | null, address: string, family: number): void {
    if (this.settled) return;
    this.marks.resolved = performance.now();
    if (err) this.fail('dns', codeOf(err));
    else this.connect(address, family);
  }

  /**
   * Builds the socket (its construction is the toolkit's work, not the target's connect time) and connects it
   * once the work already due has run (other calls' set-up included), so that it is not timed. Plain HTTP: the
   * request is built before connecting and waits in the socket's buffer, so no work of ours sits between the
   * connection and the request's first byte. Over TLS it is built only once the certificate has verified:
   * nothing is sent before.
   */
  private connect(address: string, family: number): void {
    const raw = new net.Socket();
    this.socket = raw;
    raw.once('connect', () => this.onConnect(raw));
    this.listen(raw, 'error', (err) => this.onSocketError(err));
    const send = this.plan.secure ? undefined : this.request();
    setImmediate(() => {
      if (this.settled) return;
      // Node makes the connect call on the next tick, after building the socket's handle; this tick runs just
      // before it, so the phase starts at the call itself.
      process.nextTick(() => this.onConnectStart());
      raw.connect({ host: address, port: this.plan.hop.port, family });
      send?.(raw);
    });
  }

  /** The connect call is being made. */
  private onConnectStart(): void {
    this.marks.connecting = performance.now();
  }

  /** The TCP connection is up (to the proxy, when there is one). */
  private onConnect(raw: net.Socket): void {
    const at = performance.now();
    const { secure, proxy, host, port, url } = this.plan;
    // Plain HTTP: the request waits in the socket's buffer and Node writes it right after this handler.
    if (!secure) {
      this.marks.connected = at;
      this.marks.sent = at;
    } else if (proxy) {
      // HTTPS through a proxy: the tunnel is part of connect; the target's TLS starts once it stands.
      openTunnel(
        raw,
        proxy,
        { host, port, label: url.host },
        {
          stood: () => this.onTunnel(raw),
          refused: (message) => this.fail('connect', message),
        },
      );
    } else {
      this.marks.connected = at;
      this.startTls(raw);
    }
  }

  /** The proxy's tunnel to the target stands: connected. */
  private onTunnel(raw: net.Socket): void {
    this.marks.connected = performance.now();
    this.startTls(raw);
  }

  private startTls(raw: net.Socket): void {
    const t = startHandshake(raw, this.plan.host, this.plan.opts.tls);
    this.socket = t;
    t.once('secureConnect', () => this.onSecureConnect(t));
    this.listen(t, 'error', (err) => this.onTlsError(err));
  }

  /** The handshake is done: the certificate is read and verified here, and only then is the request sent. */
  private onSecureConnect(t: tls.TLSSocket): void {
    this.marks.secured = performance.now();
    this.tlsInfo = tlsInfoOf(t);
    if (!t.authorized && !this.plan.opts.tls?.insecureSkipVerify) {
      const code = this.tlsInfo.authorizationError ?? 'unknown reason';
      this.fail('tls', `the certificate does not verify: ${code}: ${tlsAdvice(code)}`);
      return;
    }
    const send = this.request();
    this.marks.sent = performance.now();
    send(t);
  }

  private onTlsError(err: NodeJS.ErrnoException): void {
    if (!this.marks.secured) this.fail('tls', `handshake: ${codeOf(err)}`);
  }

  /** An error of the TCP socket: before the connection stands, a failure is the proxy's when there is one. */
  private onSocketError(err: NodeJS.ErrnoException): void {
    if (this.settled) return;
    if (this.marks.sent) {
      this.fail('reset', this.onKept(codeOf(err)));
      return;
    }
    const via = this.plan.proxy && !this.marks.connected ? `proxy ${this.plan.proxy.label}: ` : '';
    const reached = { connected: this.marks.connected > 0, secured: this.marks.secured > 0, tls: this.plan.secure };
    this.fail(reasonOfCode(err.code ?? '', reached), `${via}${codeOf(err)}`);
  }

  /** The request built, and the function that assigns it its socket. */
  private request(): (conn: net.Socket) => void {
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

  /**
   * A failure's words, saying when it came on a connection kept from an earlier call before any answer: the
   * server may have closed it as it waited. Never sent again here: the caller decides (the gate tries a read
   * once more and notes it as flaky; an invite with no answer may have been charged, and is never sent again).
   */
  private onKept(message: string): string {
    return this.reused && !this.marks.firstByte ? `${message} (on a kept connection)` : message;
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

  private fail(reason: TransportReason, message: string): void {
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

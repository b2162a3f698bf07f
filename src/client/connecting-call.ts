import { lookup } from 'node:dns';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type tls from 'node:tls';
import { startHandshake, tlsInfoOf } from './handshake.js';
import { type Marks, newMarks } from './phases.js';
import { reasonOfCode, type TransportReason, tlsAdvice } from './transport.js';
import { openTunnel } from './tunnel.js';
import type { CallPlan, TlsInfo } from './types.js';

/** A socket error's code and words. */
export const codeOf = (err: NodeJS.ErrnoException): string => `${err.code ?? err.name}: ${err.message}`;

/**
 * A call up to its connection, one socket event at a time: an idle connection of the pool (pool.ts), or the name
 * resolved, the TCP connection, the proxy's tunnel (tunnel.ts) and the TLS handshake (handshake.ts) with the
 * certificate verified, each phase ending with its own event and its time taken first thing (Marks). TimedCall
 * (call.ts) goes on from there: it builds and sends the request, reads the answer, and settles the call.
 */
export abstract class ConnectingCall {
  protected readonly t0 = performance.now();
  protected readonly marks: Marks = newMarks();
  protected settled = false;
  protected socket: net.Socket | undefined;
  /** The connection came from the pool (pool.ts): its failures say so. */
  protected reused = false;
  /** Removes this call's listeners from its connection's sockets (a pooled connection goes back without them). */
  protected readonly detach: (() => void)[] = [];
  protected tlsInfo: TlsInfo | undefined;

  constructor(protected readonly plan: CallPlan) {}

  /** The request built, and the function that assigns it its socket. */
  protected abstract request(): (conn: net.Socket) => void;

  /** The call fails: the first outcome settles it. */
  protected abstract fail(reason: TransportReason, message: string): void;

  /** Where the call's connection goes, for the pool: the proxy, whether TLS, and the target. */
  protected get poolKey(): string {
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
  protected listen(
    socket: net.Socket,
    event: 'error' | 'data' | 'free',
    fn: (err: NodeJS.ErrnoException) => void,
  ): void {
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

  /**
   * A failure's words, saying when it came on a connection kept from an earlier call before any answer: the
   * server may have closed it as it waited. Never sent again here: the caller decides (the gate tries a read
   * once more and notes it as flaky; an invite with no answer may have been charged, and is never sent again).
   */
  protected onKept(message: string): string {
    return this.reused && !this.marks.firstByte ? `${message} (on a kept connection)` : message;
  }
}

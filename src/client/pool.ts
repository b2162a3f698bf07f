import type net from 'node:net';

/**
 * How long a connection may wait idle for its next request. Servers close idle connections after seconds (Node 5,
 * nginx 75): well under any of those, so that a connection taken from the pool is one the server still holds.
 */
export const IDLE_MS = 1000;

/** What ends an idle connection's wait: its error or end, or anything the server sends unasked. */
const ENDS_IDLE = ['error', 'close', 'end', 'data'] as const;

/**
 * Connections kept open between the calls of one gate run (its reads and the invites it expects refused:
 * target/send-policy.ts), keyed by where they go: a request sent on one skips the name, the connect and the
 * handshake, on the target as on the runner (a run sends thousands). The probe times those phases and never uses
 * one.
 * A connection waits here unreferenced (the process may exit), and is closed after IDLE_MS, at its first error
 * or end, or when the server sends anything unasked (the next answer would start with it).
 */
export class ConnectionPool {
  private readonly idle = new Map<string, { socket: net.Socket; timer: NodeJS.Timeout; drop: () => void }[]>();

  /** An idle connection to `key`, the last one put back, taken out of the pool; none when there is none. */
  take(key: string): net.Socket | undefined {
    const list = this.idle.get(key) ?? [];
    for (let one = list.pop(); one; one = list.pop()) {
      const { socket, timer, drop } = one;
      clearTimeout(timer);
      for (const event of ENDS_IDLE) socket.off(event, drop);
      if (!socket.destroyed && socket.writable && !socket.readableEnded) {
        socket.ref();
        return socket;
      }
      socket.destroy();
    }
    return undefined;
  }

  /** Puts back a connection whose answer was read whole and which the server keeps open. */
  give(key: string, socket: net.Socket): void {
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const list = this.idle.get(key) ?? [];
    this.idle.set(key, list);
    const drop = (): void => {
      const i = list.findIndex((x) => x.socket === socket);
      if (i >= 0) {
        clearTimeout(list[i]?.timer);
        list.splice(i, 1);
      }
      socket.destroy();
    };
    const timer = setTimeout(drop, IDLE_MS);
    timer.unref();
    for (const event of ENDS_IDLE) socket.on(event, drop);
    socket.unref();
    list.push({ socket, timer, drop });
  }

  /** Closes every idle connection. */
  close(): void {
    for (const list of this.idle.values()) for (const { drop } of [...list]) drop();
    this.idle.clear();
  }
}

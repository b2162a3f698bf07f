import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { type LogEntry, mostInFlight } from '../src/simulator/request-log.ts';
import { LearnedRate, localPace, type Pace, paceClient, servePace } from '../src/target/pace.ts';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `tasks` requests of `holdMs` each through `pace`, and says how many were ever in flight at once. */
async function mostAtOnce(paces: Pace[], tasks: number, holdMs: number, counter = { now: 0, most: 0 }) {
  await Promise.all(
    Array.from({ length: tasks }, async (_, i) => {
      const release = await (paces[i % paces.length] as Pace).acquire();
      counter.most = Math.max(counter.most, ++counter.now);
      await tick(holdMs);
      counter.now--;
      release();
    }),
  );
  return counter.most;
}

/** A raw connection to a pace server, for what a worker that dies does. */
function rawClient(port: number): Promise<{ socket: Socket; lines: string[]; next: () => Promise<string> }> {
  return new Promise((resolve) => {
    const lines: string[] = [];
    const wanted: ((l: string) => void)[] = [];
    const socket = createConnection({ host: '127.0.0.1', port }, () => resolve({ socket, lines, next }));
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const w = wanted.shift();
        if (w) w(line);
        else lines.push(line);
      }
    });
    const next = (): Promise<string> => {
      const l = lines.shift();
      return l !== undefined ? Promise.resolve(l) : new Promise((r) => wanted.push(r));
    };
  });
}

describe('the run pace', () => {
  it('holds requests in flight to the concurrency, and reaches it', async () => {
    assert.equal(await mostAtOnce([localPace({ concurrency: 3 })], 12, 15), 3);
    assert.equal(await mostAtOnce([localPace({ concurrency: 1 })], 5, 5), 1);
    // No bound given: nothing waits.
    assert.equal(await mostAtOnce([localPace({})], 6, 15), 6);
  });

  it('takes several slots at once, all of them when asked for more, and frees each once', async () => {
    const pace = localPace({ concurrency: 3 });
    const all = await pace.acquire(5);
    let got = false;
    const one = pace.acquire().then((r) => {
      got = true;
      return r;
    });
    await tick(20);
    assert.equal(got, false, 'a request waited while the slots were all taken together');
    all();
    all();
    const r1 = await one;
    assert.equal(got, true);
    // The double release above gave back three slots, not six: three more fit, a fourth waits.
    const held = [await pace.acquire(), await pace.acquire()];
    let fourth = false;
    void pace.acquire().then(() => {
      fourth = true;
    });
    await tick(20);
    assert.equal(fourth, false);
    for (const r of [r1, ...held]) r();
    await tick(5);
    assert.equal(fourth, true);
  });

  it('served on loopback, is one bound for every process that asks', async () => {
    const served = await servePace(localPace({ concurrency: 3 }));
    try {
      const clients = [paceClient(served.port), paceClient(served.port), paceClient(served.port)];
      assert.equal(await mostAtOnce(clients, 18, 15), 3);
    } finally {
      await served.close();
    }
  });

  it('frees what a connection held or waited for when it closes, and drops a connection that speaks nonsense', async () => {
    const served = await servePace(localPace({ concurrency: 2 }));
    try {
      const dying = await rawClient(served.port);
      dying.socket.write('+1 2\n');
      assert.equal(await dying.next(), '1');
      dying.socket.write('+2 1\n');
      const other = paceClient(served.port);
      let granted = false;
      const waiting = other.acquire(2).then((r) => {
        granted = true;
        return r;
      });
      await tick(30);
      assert.equal(granted, false, 'both slots were held by the first connection');
      dying.socket.destroy();
      const release = await waiting;
      release();
      const rude = await rawClient(served.port);
      const closed = new Promise((r) => rude.socket.on('close', r));
      rude.socket.write('give me everything\n');
      await closed;
      assert.equal(await mostAtOnce([other], 4, 10), 2);
    } finally {
      await served.close();
    }
  });

  it('serves a request asked `first` (an invite) before those already waiting, in process and over loopback', async () => {
    const served = await servePace(localPace({ concurrency: 1 }));
    try {
      for (const [a, b] of [
        [localPace({ concurrency: 1 }), undefined],
        [paceClient(served.port), paceClient(served.port)],
      ] as const) {
        const other = b ?? a;
        const order: string[] = [];
        const held = await a.acquire();
        const turn = (name: string, first: boolean) =>
          other.acquire(1, first).then((release) => {
            order.push(name);
            release();
          });
        const reads = [turn('read 1', false), turn('read 2', false)];
        await tick(20);
        const invite = turn('invite', true);
        await tick(20);
        held();
        await Promise.all([...reads, invite]);
        assert.deepEqual(order, ['invite', 'read 1', 'read 2']);
      }
    } finally {
      await served.close();
    }
  });

  it('fails what waits when the server is gone, never lets it through', async () => {
    const served = await servePace(localPace({ concurrency: 1 }));
    const client = paceClient(served.port);
    const first = await client.acquire();
    const second = client.acquire();
    await tick(10);
    await served.close();
    await assert.rejects(second, /lost the run's pace/);
    first();
  });

  it('is checked at the target by the simulator log: the most requests it held at once', () => {
    const at = (arrivedMs: number, durationMs: number): LogEntry =>
      ({ seq: 0, method: 'GET', path: '/', httpStatus: 200, couldSucceed: false, arrivedMs, durationMs }) as LogEntry;
    assert.equal(mostInFlight([]), 0);
    assert.equal(mostInFlight([at(0, 10), at(5, 10), at(9, 1), at(10, 10)]), 3);
    // One that ends as another arrives did not overlap it.
    assert.equal(mostInFlight([at(0, 10), at(10, 10), at(20, 10)]), 1);
  });
});

/** A learned rate on a clock of its own, and `through(n, ms)`: n answers let through evenly over ms. */
function clocked(): { rate: LearnedRate; through(n: number, ms: number): void } {
  let now = 0;
  const rate = new LearnedRate(
    undefined,
    () => undefined,
    () => now,
  );
  return {
    rate,
    through(n, ms) {
      for (let i = 0; i < n; i++, now += ms / n) rate.report(false);
    },
  };
}

describe('the learned rate', () => {
  it("names the provider's rate by the least bucket that let through every window: bursts and slow stretches do not move it", () => {
    const { rate, through } = clocked();
    // Unpaced: a full bucket of 8/s (burst 2) lets 18 through in the first 2 s, then limits.
    through(18, 2000);
    assert.equal(rate.providerRate(), undefined, 'no rate before a limit');
    rate.report(true);
    // Paced: 8 a second for 3 s, a burst of 2 more at once, a slow stretch (a loaded runner), 8 a second again.
    through(24, 3000);
    through(2, 1);
    rate.report(true);
    through(8, 4000);
    through(40, 5000);
    rate.report(true);
    assert.equal(Math.round(rate.providerRate() ?? 0), 8);
    // Only faster answers move it: 100 a second for 5 s (burst 25) is named 100/s, within a twentieth.
    through(525, 5000);
    assert.ok(Math.abs((rate.providerRate() ?? 0) / 100 - 1) <= 0.05, `${rate.providerRate()}`);
  });

  it('a long stretch just under the limit names the rate, where the burst is spent: 98 a second for 30 s', () => {
    const { rate, through } = clocked();
    rate.report(true);
    through(2940, 30_000);
    // Any 5 s alone says 93/s (a burst of 24 could have carried 5 s of it); 30 s of it cannot be a burst.
    assert.ok((rate.providerRate() ?? 0) >= 97, `${rate.providerRate()}`);
  });
});

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { ConnectionPool, callApi } from '../src/client/client.ts';
import { ACCEPT_ENCODING } from '../src/client/codings.ts';
import { httpSend, sendUnderPolicy } from '../src/target/send-policy.ts';

// The client reads the provider's answer as the provider may write it: a JSON body after a byte-order mark (some
// frameworks write one) is JSON; anything else that is not JSON has no body to judge.

describe('the client reads answers', () => {
  let server: Server;
  let baseUrl = '';
  before(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      if (req.url?.startsWith('/api/saldo-user')) res.end('\uFEFF{"ok":true,"status":"SUCCESS","saldo":5}');
      else res.end('\uFEFF not json');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a JSON body after a byte-order mark is JSON; a body that is not JSON stays unparsed', async () => {
    const bom = await callApi({ baseUrl, endpoint: 'saldo-user', method: 'GET', params: { api_key: 'k' } });
    assert.deepEqual(bom.exchange?.body, { ok: true, status: 'SUCCESS', saldo: 5 });
    const junk = await callApi({ baseUrl, endpoint: 'cek-trx-id', method: 'GET', params: { api_key: 'k' } });
    assert.equal(junk.exchange?.body, undefined);
    assert.equal(junk.exchange?.bodyText, '\uFEFF not json');
  });
});

describe('the client decodes content codings, within the body cap', () => {
  const ENVELOPE = Buffer.from('{"ok":true,"status":"SUCCESS","saldo":7}');
  const encoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: (b) => zlib.gzipSync(b),
    deflate: (b) => zlib.deflateSync(b),
    'deflate-raw': (b) => zlib.deflateRawSync(b),
    br: (b) => zlib.brotliCompressSync(b),
    'gzip, br': (b) => zlib.brotliCompressSync(zlib.gzipSync(b)),
  };
  let server: Server;
  let baseUrl = '';
  let accepted = '';
  // 10 MiB of spaces, gzip: 10 KiB on the wire (made before anything is measured).
  const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024, 32), { level: 9 });
  before(async () => {
    server = createServer((req, res) => {
      accepted = String(req.headers['accept-encoding'] ?? '');
      const coding = decodeURIComponent(new URL(req.url ?? '/', 'http://x').searchParams.get('coding') ?? '');
      res.setHeader('content-type', 'application/json');
      if (coding === 'bomb') {
        res.setHeader('content-encoding', 'gzip');
        return res.end(bomb);
      }
      if (coding === 'compress' || coding === 'garbage') {
        res.setHeader('content-encoding', coding === 'compress' ? 'compress' : 'gzip');
        return res.end(Buffer.from('not compressed at all'));
      }
      const encode = encoders[coding];
      if (encode) res.setHeader('content-encoding', coding === 'deflate-raw' ? 'deflate' : coding);
      res.end(encode ? encode(ENVELOPE) : ENVELOPE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const call = (coding: string, bodyCap?: number) =>
    callApi({
      baseUrl,
      endpoint: 'saldo-user',
      method: 'GET',
      params: { coding },
      ...(bodyCap ? { bodyCap } : {}),
    });

  it('asks for every coding it decodes, and decodes gzip, deflate (zlib or raw), br and stacked codings', async () => {
    for (const coding of Object.keys(encoders)) {
      const r = await call(coding);
      assert.equal(r.error, undefined, `${coding}: ${r.error?.message}`);
      assert.deepEqual(r.exchange?.body, { ok: true, status: 'SUCCESS', saldo: 7 }, coding);
    }
    assert.equal(accepted, ACCEPT_ENCODING);
    assert.match(accepted, /^gzip, deflate, br/);
  });

  it('a coding it cannot decode, or a body not valid in its coding, is content_coding, named', async () => {
    const unknown = await call('compress');
    assert.equal(unknown.error?.reason, 'content_coding');
    assert.equal(unknown.error?.message, "content coding 'compress' not supported");
    const garbage = await call('garbage');
    assert.equal(garbage.error?.reason, 'content_coding');
    assert.match(garbage.error?.message ?? '', /not valid gzip/);
  });

  it('a small body that decodes past the cap is body_too_large, and never held whole in memory', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const r = await call('bomb', 1024 * 1024);
    assert.equal(r.error?.reason, 'body_too_large');
    assert.match(r.error?.message ?? '', /once decoded/);
    const grew = process.memoryUsage().arrayBuffers - before;
    assert.ok(grew < 4 * 1024 * 1024, `buffers grew ${(grew / 1024 / 1024).toFixed(1)} MiB for a 10 MiB body`);
  });
});

describe('connections kept between calls (a pool, the gate’s)', () => {
  let server: Server;
  let baseUrl = '';
  /** Connections the server accepted, and the Connection header of each request. */
  let accepted = 0;
  const asked: string[] = [];
  /** When set, a connection's second request is never answered: the server closes the connection instead. */
  let dropSecond = false;
  const served = new WeakMap<object, number>();
  before(async () => {
    server = createServer((req, res) => {
      asked.push(String(req.headers.connection));
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (dropSecond && n === 2) return req.socket.destroy();
      res.setHeader('content-type', 'application/json');
      if (req.url?.includes('close=1')) res.setHeader('connection', 'close');
      res.end('{"ok":true,"status":"SUCCESS","saldo":5}');
    });
    server.on('connection', () => {
      accepted++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const saldo = (pool?: ConnectionPool, params: Record<string, string> = {}) =>
    callApi({
      baseUrl,
      endpoint: 'saldo-user',
      method: 'GET',
      params: { api_key: 'k', ...params },
      ...(pool ? { pool } : {}),
    });

  it('calls with a pool share one connection; without one, each has its own, closed after it', async () => {
    const pool = new ConnectionPool();
    accepted = 0;
    asked.length = 0;
    for (let i = 0; i < 5; i++) assert.equal((await saldo(pool)).exchange?.httpStatus, 200);
    assert.equal(accepted, 1, 'five reads, one connection');
    assert.deepEqual(asked, Array(5).fill('keep-alive'));
    const again = await saldo(pool);
    assert.equal(again.phases.connect, 0, 'a reused connection has no connect phase');
    accepted = 0;
    asked.length = 0;
    for (let i = 0; i < 3; i++) await saldo();
    assert.equal(accepted, 3);
    assert.deepEqual(asked, Array(3).fill('close'));
    pool.close();
  });

  it("the gate's sender keeps reads and invites sent as refusals; any other invite has a connection of its own", async () => {
    const raw = httpSend(baseUrl);
    const invite = { api_key: 'k', trx_id: 'T-1', product_code: 'P', msisdn: '081299900001' };
    accepted = 0;
    for (let i = 0; i < 3; i++) await raw('saldo-user', 'GET', { api_key: 'k' });
    for (let i = 0; i < 3; i++) await raw('invite-member', 'POST', invite, { kept: true });
    assert.equal(accepted, 1, 'three reads and three invites sent as refusals, one connection');
    for (let i = 0; i < 3; i++) await raw('invite-member', 'GET', invite);
    assert.equal(accepted, 4, 'three other invites, three connections');
    assert.deepEqual(asked.slice(-3), Array(3).fill('close'));
  });

  it('a connection the server closes is not reused; one closed as the next call came fails that call, said so', async () => {
    const pool = new ConnectionPool();
    accepted = 0;
    await saldo(pool, { close: '1' });
    await saldo(pool, { close: '1' });
    assert.equal(accepted, 2, 'Connection: close from the server: a new connection for the next call');
    dropSecond = true;
    try {
      accepted = 0;
      // The first call leaves its connection in the pool; the second is sent on it, and the server closes it
      // without a byte of answer (as a server does with a connection it timed out). The client never sends a
      // request twice by itself: the call fails, saying where, and the caller decides (the gate retries a read).
      assert.equal((await saldo(pool)).exchange?.httpStatus, 200);
      const lost = await saldo(pool);
      assert.equal(lost.error?.reason, 'reset');
      assert.match(lost.error?.message ?? '', /\(on a kept connection\)$/);
      assert.equal((await saldo(pool)).exchange?.httpStatus, 200, 'the next call has a new connection');
      assert.equal(accepted, 2);
    } finally {
      dropSecond = false;
      pool.close();
    }
  });

  it('a read lost on a kept connection is sent again on a new one, not on another kept one (a proxy closed both)', async () => {
    const raw = httpSend(baseUrl);
    const read = () =>
      sendUnderPolicy(raw, 'saldo-user', 'GET', { api_key: 'k' }, { maxWaitMs: 0 }, { flaky: [], waits: [] });
    // Two reads at once leave two connections in the pool, each with one request served.
    await Promise.all([read(), read()]);
    dropSecond = true;
    try {
      accepted = 0;
      // Both kept connections are closed at their next request: the read goes on one, is lost, and is sent again.
      // On the other kept one it would be lost again; on a new connection it is answered.
      const notes = { flaky: [] as string[], waits: [] };
      const ex = await sendUnderPolicy(raw, 'saldo-user', 'GET', { api_key: 'k' }, { maxWaitMs: 0 }, notes);
      assert.equal(ex.httpStatus, 200);
      assert.equal(accepted, 1, 'the retry opened a connection of its own');
      assert.equal(notes.flaky.length, 1, 'the lost read is noted as flaky');
    } finally {
      dropSecond = false;
    }
  });
});

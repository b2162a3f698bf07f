import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { callApi } from '../src/client/client.ts';

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

// A fixed battery of requests the gate's run did not send (issue 39, Build 2): every kind of refusal and every
// success, GET and POST, every parameter under each of its names. Sent after the run to the provider, and replayed
// with the run against the mock serving what the run learned, it measures the reading on requests it was not
// learned from.
import type { ApiModel } from '../src/openapi/load.ts';
import { ENDPOINTS, type Endpoint, type Method, type Params } from '../src/openapi/types.ts';

/** One request of the battery: what it is for, and what it sends. */
export interface BatteryRequest {
  what: string;
  endpoint: Endpoint;
  method: Method;
  params: Params;
  /** POST only: this text in place of `params` as JSON. */
  body?: { text: string; contentType: string };
}

/** What the battery takes from the account: its key, a transaction and date it holds, the suite's invite. */
export interface BatteryAccount {
  apiKey: string;
  /** A trx_id of the account's history, with its date. */
  known?: { trxId: string; date: string };
  product: string;
  kind: 'akrab' | 'circle';
  msisdn: string;
  /** Distinct per run: the battery's own trx_ids start with it. */
  tag: string;
}

const METHODS: readonly Method[] = ['GET', 'POST'];

/**
 * The battery for an account: its successes and its refusals (each for one fault), by both methods.
 */
export function battery(api: ApiModel, a: BatteryAccount): BatteryRequest[] {
  let n = 0;
  const fresh = (): string => `${a.tag}${String(++n).padStart(3, '0')}`;
  return METHODS.flatMap((method) => [...successes(api, a, method, fresh), ...refusals(a, method, fresh)]);
}

/** An invite that can be carried out, with a fresh trx_id. */
const inviteOf = (a: BatteryAccount, fresh: () => string): Params => ({
  api_key: a.apiKey,
  trx_id: fresh(),
  product_code: a.product,
  msisdn: a.msisdn,
  name: 'Battery',
  kind: a.kind,
});

/**
 * Each success sent once under each name of each of its parameters (the names taken in turn, so every name of
 * every parameter is sent), then one invite twice over.
 */
function successes(api: ApiModel, a: BatteryAccount, method: Method, fresh: () => string): BatteryRequest[] {
  const out: BatteryRequest[] = [];
  /** Successes of an endpoint: as many as its parameter with the most names has names, name i of each. */
  const underEveryName = (endpoint: Endpoint, canonical: () => Params, what: string): void => {
    const base = canonical();
    const names = Object.keys(base).map((p) => api.namesOf(endpoint, p));
    const rounds = Math.max(1, ...names.map((ns) => ns.length));
    for (let i = 0; i < rounds; i++) {
      const values = i === 0 ? base : canonical();
      const params: Params = {};
      for (const ns of names) params[ns[i % ns.length] as string] = values[ns[0] as string] ?? '';
      out.push({ what: `${what} (names ${i})`, endpoint, method, params });
    }
  };
  const key = { api_key: a.apiKey };
  const limit = method === 'GET' ? '5' : 5;
  underEveryName('saldo-user', () => ({ ...key }), 'balance');
  underEveryName('history-transaksi', () => ({ ...key, limit }), 'history page');
  if (a.known) {
    const { trxId, date } = a.known;
    underEveryName('history-transaksi', () => ({ ...key, limit, q: trxId }), 'history by q');
    underEveryName('history-transaksi', () => ({ ...key, limit, date }), 'history by date');
    const month = { month: date.slice(5, 7), year: date.slice(0, 4) };
    underEveryName('history-transaksi', () => ({ ...key, limit, ...month }), 'history by month');
    underEveryName('cek-trx-id', () => ({ ...key, trx_id: trxId }), 'lookup');
  }
  underEveryName('invite-member', () => inviteOf(a, fresh), 'invite');
  const sent = inviteOf(a, fresh);
  out.push({ what: 'invite', endpoint: 'invite-member', method, params: sent });
  out.push({ what: 'the same invite again', endpoint: 'invite-member', method, params: { ...sent } });
  return out;
}

/** Refusals, each for one fault: of the key on every endpoint, a body that is no JSON, each parameter's. */
function refusals(a: BatteryAccount, method: Method, fresh: () => string): BatteryRequest[] {
  const out: BatteryRequest[] = [];
  const key = { api_key: a.apiKey };
  const limit = method === 'GET' ? '5' : 5;
  const invite = (): Params => inviteOf(a, fresh);
  for (const endpoint of ENDPOINTS) {
    const ok: Params =
      endpoint === 'invite-member'
        ? invite()
        : endpoint === 'cek-trx-id'
          ? { ...key, trx_id: a.known?.trxId ?? `${a.tag}none` }
          : endpoint === 'history-transaksi'
            ? { ...key, limit }
            : { ...key };
    out.push({ what: 'wrong key', endpoint, method, params: { ...ok, api_key: `${a.apiKey}x` } });
    const { api_key: _k, ...noKey } = ok;
    out.push({ what: 'missing key', endpoint, method, params: noKey });
    out.push({ what: 'empty key', endpoint, method, params: { ...ok, api_key: '' } });
    if (method === 'POST')
      out.push({
        what: 'a body that is not JSON',
        endpoint,
        method,
        params: ok,
        body: { text: '{"api_key": ', contentType: 'application/json' },
      });
  }
  for (const param of ['trx_id', 'product_code', 'msisdn']) {
    const { [param]: _gone, ...rest } = invite();
    out.push({ what: `invite without ${param}`, endpoint: 'invite-member', method, params: rest });
  }
  const inv = (what: string, change: Params): BatteryRequest => ({
    what,
    endpoint: 'invite-member',
    method,
    params: { ...invite(), ...change },
  });
  out.push(inv('invite, malformed msisdn', { msisdn: '12345678901' }));
  out.push(inv('invite, unknown product', { product_code: 'NO-SUCH-PRODUCT-9' }));
  out.push(inv('invite, other kind', { kind: 'gold' }));
  const unknown = { ...key, trx_id: `${a.tag}none` };
  out.push({ what: 'lookup, unknown transaction', endpoint: 'cek-trx-id', method, params: unknown });
  out.push({ what: 'lookup without trx_id', endpoint: 'cek-trx-id', method, params: { ...key } });
  for (const [param, value] of [
    ['date', '2024-13-45'],
    ['month', '13'],
    ['year', '20x4'],
    ['limit', 'abc'],
  ] as const)
    out.push({
      what: `history, malformed ${param}`,
      endpoint: 'history-transaksi',
      method,
      params: { ...key, limit, [param]: value },
    });
  return out;
}

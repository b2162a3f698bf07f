import { historyComplete } from '../../checks/outcome.js';
import type { ApiModel } from '../../openapi/load.js';
import type { ClauseId, Endpoint, Exchange, Method, Params } from '../../openapi/types.js';
import { type InviteIntent, refusalExpected } from '../../target/invite-ledger.js';
import type { Area, ScenarioContext } from '../scenario.js';

/** The area (Playwright file) of each endpoint's scenarios. */
export const AREA_OF: Record<Endpoint, Area> = {
  'invite-member': 'invite',
  'history-transaksi': 'history',
  'cek-trx-id': 'lookup',
  'saldo-user': 'balance',
};

/** The clauses judged on an ordinary successful answer of an endpoint. */
export const SUCCESS_CLAUSES: Record<Endpoint, ClauseId[]> = {
  'saldo-user': ['BAL-1'],
  'history-transaksi': ['HIS-1'],
  'cek-trx-id': ['TRX-1'],
  'invite-member': ['INV-1', 'INV-2'],
};

/**
 * The intent of an ordinary invite of a scenario: in the `write` form a conformant API carries it out; in the
 * `safe` form it reuses a transaction ID, so it must be refused as a repeat (INV-5).
 */
export function ordinaryIntent(ctx: ScenarioContext, clause: ClauseId): InviteIntent {
  return ctx.form === 'write' ? { expect: 'success', clause } : { expect: 'refusal', clause: 'used-trx' };
}

/** Sends a scenario's request: an invite through the ledger with its intent, anything else as a read. */
export function sendAs(
  ctx: ScenarioContext,
  endpoint: Endpoint,
  method: Method,
  params: Params,
  intent: InviteIntent,
): Promise<Exchange> {
  return endpoint === 'invite-member'
    ? ctx.invite(method, params, intent)
    : ctx.send(endpoint, method, params, { mustRefuse: refusalExpected(intent) });
}

/**
 * Sends two history requests that must give the same records, and narrows both (a q the record holds) until
 * at least one answer is complete, so two correct answers are never two different pages of a longer result.
 * A narrowing is skipped when a request already names that parameter under any name.
 */
export async function comparablePair(
  ctx: ScenarioContext,
  api: ApiModel,
  send: (params: Params, which: 0 | 1) => Promise<Exchange>,
  pair: [Params, Params],
): Promise<[Exchange, Exchange]> {
  const r = ctx.data.record;
  const narrowings: Params[] = [{}, ...(r ? [{ q: r.member_number }, { q: r.trx_id }] : [])];
  const qNames = api.namesOf('history-transaksi', 'q');
  let last: [Exchange, Exchange] | undefined;
  for (const extra of narrowings) {
    const names = Object.keys(extra);
    if (names.length && pair.some((p) => Object.keys(p).some((k) => qNames.includes(k)))) continue;
    const a = await send({ ...pair[0], ...extra }, 0);
    const b = await send({ ...pair[1], ...extra }, 1);
    last = [a, b];
    // Narrowing stops once an answer is complete, or cannot be (a refusal: no records to narrow).
    if (historyComplete(api, a) !== false || historyComplete(api, b) !== false) return last;
  }
  if (!last) throw new Error('comparablePair: no request was sent');
  return last;
}

/**
 * Two lookups of one transaction that differ only in its state: the provider may have moved it between the two
 * calls (its transitions are not shown). The first request is sent again: when its state now agrees with the
 * second's, the two are compared as the later pair; else as they came (ENV-2, ENV-3 judge the difference).
 */
export async function settledStates(ctx: ScenarioContext, pair: [Exchange, Exchange]): Promise<[Exchange, Exchange]> {
  const data = (ex: Exchange): { ok?: unknown; data?: { trx_id?: unknown; status?: unknown } } =>
    (ex.body ?? {}) as { ok?: unknown; data?: { trx_id?: unknown; status?: unknown } };
  const [a, b] = pair.map(data) as [ReturnType<typeof data>, ReturnType<typeof data>];
  if (
    pair[0].endpoint !== 'cek-trx-id' ||
    a.ok !== true ||
    b.ok !== true ||
    a.data?.trx_id !== b.data?.trx_id ||
    a.data?.status === b.data?.status
  )
    return pair;
  const again = await ctx.send('cek-trx-id', pair[0].method, pair[0].params);
  return data(again).data?.status === b.data?.status ? [again, pair[1]] : pair;
}

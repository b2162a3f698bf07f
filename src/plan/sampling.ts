import { forms } from '../openapi/numbers.js';
import type { Endpoint, Params } from '../openapi/types.js';
import { lookedSucceeded } from '../target/record-kinds.js';
import { settledDate } from '../target/target.js';
import type { ScenarioContext } from './scenario.js';

/**
 * Without writes, invites name this product, which no reseller sells: with the used transaction ID that is a
 * second guard against any charge, and the request stays valid for the document.
 */
export const READ_ONLY_PRODUCT = 'H2H-CONTRACT-NO-SUCH-PRODUCT';
/** Without configured test numbers: a well-formed number for requests that cannot succeed. */
export const PLACEHOLDER_MSISDN = '081200000000';
/** A search no record holds: what history reads compare on an account without history. */
const NO_SUCH_RECORD = 'H2H-CONTRACT-NO-SUCH-RECORD';
/** A key no account has. */
export const WRONG_KEY = 'h2h-wrong-key-0000';
/** Records asked for when history answers are compared, unless the target clamps lower (`pageLimit`). */
export const COMPARE_LIMIT = 20;

/**
 * The limit of history reads that compare answers or look for a record: COMPARE_LIMIT, or the page discovery
 * got when it was shorter (a provider may clamp `limit` silently: only fewer records than this prove an answer
 * complete).
 */
export function compareLimit(ctx: Pick<ScenarioContext, 'data'>): number {
  return ctx.data.pageLimit ?? COMPARE_LIMIT;
}

/**
 * Used transaction IDs that guard invites sent side by side, each a different one (a trx_id is never in flight
 * twice: were the first lost, the others would be its repeats): the known one first, then every record's whose
 * member is none of the run's numbers (a guarded invite must never repeat one of the gate's exactly). `alone`: the
 * ID is the only guard (the product is real), so only IDs a lookup showed SUCCESS (a provider may let a failed
 * transaction's ID be tried again), or the known one when none was looked up.
 */
export function guardTrxIds(ctx: Pick<ScenarioContext, 'data' | 'target'>, alone = false): string[] {
  const own = new Set(ctx.target.msisdns.map((m) => forms(m).f62));
  const ids = [
    ctx.data.knownTrxId ?? '',
    ...(ctx.data.records ?? []).filter((r) => !own.has(forms(r.member_number).f62)).map((r) => r.trx_id ?? ''),
  ].filter((id) => id !== '' && (!alone || lookedSucceeded(ctx.data.looked?.[id])));
  const unique = [...new Set(ids)];
  return unique.length || !alone ? unique : [ctx.data.knownTrxId ?? ''];
}

/** The member number invites of a scenario use: the first configured test number, in 08-form. */
export function testNumber(ctx: Pick<ScenarioContext, 'target'>, index = 0): string {
  const list = ctx.target.msisdns;
  return forms(list[index % Math.max(1, list.length)] ?? PLACEHOLDER_MSISDN).f08;
}

/**
 * An invite request in the scenario's form. `write`: a fresh trx_id and the configured product. `safe`: a
 * used trx_id (so a contract-keeping API refuses it as a repeat, INV-5) and a product that cannot exist.
 */
export function inviteParams(ctx: ScenarioContext, msisdn = testNumber(ctx)): Params {
  const write = ctx.form === 'write';
  return {
    api_key: ctx.target.apiKey,
    trx_id: write ? ctx.newTrxId() : (ctx.data.knownTrxId ?? ''),
    product_code: write ? (ctx.target.product ?? '') : READ_ONLY_PRODUCT,
    msisdn,
    ...(ctx.target.kind ? { kind: ctx.target.kind } : {}),
  };
}

/** The request an endpoint's ordinary scenarios send, before any alias. */
export function baseParams(ctx: ScenarioContext, endpoint: Endpoint): Params {
  switch (endpoint) {
    case 'saldo-user':
      return { api_key: ctx.target.apiKey };
    case 'history-transaksi': {
      // A past date of the account's own history: its records no longer change while invites run. Without one
      // (every record seen is of the newest date, or there is none), a query no invite of the run can change:
      // the record's own trx_id, or a q that matches nothing.
      const r = ctx.data.record;
      return {
        api_key: ctx.target.apiKey,
        limit: compareLimit(ctx),
        ...(!r ? { q: NO_SUCH_RECORD } : settledDate(ctx.data, r.date ?? '') ? { date: r.date } : { q: r.trx_id }),
      };
    }
    case 'cek-trx-id':
      return { api_key: ctx.target.apiKey, trx_id: ctx.data.knownTrxId };
    case 'invite-member':
      return inviteParams(ctx);
  }
}

/** A value for a canonical parameter, taken from the target's config and its own history. */
export function sample(ctx: ScenarioContext, endpoint: Endpoint, name: string): unknown {
  const r = ctx.data.record;
  switch (name) {
    case 'api_key':
      return ctx.target.apiKey;
    case 'trx_id':
      return endpoint === 'invite-member' ? ctx.newTrxId() : ctx.data.knownTrxId;
    case 'product_code':
      return ctx.form === 'write' ? ctx.target.product : READ_ONLY_PRODUCT;
    case 'msisdn':
      return testNumber(ctx);
    case 'name':
      return 'H2H Contract Test';
    case 'kind':
      return ctx.target.kind;
    case 'limit':
      return compareLimit(ctx);
    case 'q':
      return r?.trx_id;
    case 'date':
      return r?.date;
    case 'month':
      return r?.date?.slice(5, 7);
    case 'year':
      return r?.date?.slice(0, 4);
    default:
      return undefined;
  }
}

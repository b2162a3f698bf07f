import { bodyOf } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** Fields that only an account's own data has: a transaction, an invite's numbers and slot. */
const ACCOUNT_FIELDS = ['trx_id', 'manager_number', 'member_number', 'manager', 'member', 'slot'];
/** Names a balance goes by, under any casing. */
const BALANCE = /^(saldo|balance|balances|credit|deposit)$/i;
/** How deep a refusal is searched for account data. */
const DEPTH = 6;

/** A value that says something: not absent, null, empty text, or 0. */
const said = (x: unknown): boolean => x !== undefined && x !== null && x !== '' && x !== 0;

/**
 * Whether an object holds account data itself: one of ACCOUNT_FIELDS with a value that is not merely the request's
 * own value said back (a refusal may echo the trx_id or the number it was sent: that reveals nothing), or a
 * transaction's state beside its ID: SUCCESS (the one state the description names), or the state the account's
 * own record was seen with (`known`).
 */
function accountObject(v: Readonly<Record<string, unknown>>, sent: ReadonlySet<string>, ctx: Seen): boolean {
  if (ACCOUNT_FIELDS.some((k) => said(v[k]) && !sent.has(String(v[k])) && !sent.has(to62(v[k])))) return true;
  return (
    typeof v.trx_id === 'string' &&
    typeof v.status === 'string' &&
    // The refusal's own word said again beside the ID asked for reveals nothing.
    v.status !== ctx.refusalStatus &&
    (v.status.toUpperCase() === 'SUCCESS' || v.status === ctx.knownStatus)
  );
}

interface Seen {
  refusalStatus: unknown;
  knownStatus?: string | undefined;
}

/**
 * The first place in a refusal's body that holds account data, at any depth: an object of the account's own
 * fields (accountObject), or a balance under any of its names. Field names and empty values are not data: a
 * refusal may carry `detail: "Invalid API key"`, `data: {}`, an empty record's shape or nulls.
 */
function accountDataAt(v: unknown, sent: ReadonlySet<string>, ctx: Seen, path = '$', depth = 0): string | undefined {
  if (depth > DEPTH || typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const at = accountDataAt(x, sent, ctx, `${path}[${i}]`, depth + 1);
      if (at) return at;
    }
    return undefined;
  }
  const o = v as Record<string, unknown>;
  if (depth > 0 && accountObject(o, sent, ctx)) return path;
  for (const [k, x] of Object.entries(o)) {
    if (BALANCE.test(k) && typeof x === 'number' && said(x)) return `${path}.${k}`;
    const at = accountDataAt(x, sent, ctx, `${path}.${k}`, depth + 1);
    if (at) return at;
  }
  return undefined;
}

/** AUTH-1: a missing, empty or wrong key never yields ok true, and the answer carries no account data. */
export const auth1 = defineCheck({
  id: 'AUTH-1',
  title: 'a missing, empty or wrong api_key is refused and reveals no account data',
  scope: 'refusal',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const body = bodyOf(ex);
    if (!body) return [];
    const sent = new Set(Object.values(ex.params).flatMap((v) => [String(v), to62(v)]));
    const out = [];
    if (body.ok === true) out.push(finding(api, 'AUTH-1', ex, '$.ok', 'not true for a bad api_key', body.ok));
    // Account data anywhere, not the names of fields: a balance, an invite's detail, a record, a list of records.
    const at = accountDataAt(body, sent, { refusalStatus: body.status, knownStatus: ev.knownStatus });
    if (at) {
      const top = /^\$\.[^.[]+/.exec(at)?.[0] ?? at;
      const what = top === '$.saldo' ? '(absent: no balance for a bad key)' : '(absent or empty: no account data)';
      out.push(finding(api, 'AUTH-1', ex, top, what, body[top.slice(2)]));
    }
    return out;
  },
});

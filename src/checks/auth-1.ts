import { bodyOf } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** Fields that only an account's own data has: a balance, a transaction, an invite's numbers and slot. */
const ACCOUNT_FIELDS = ['saldo', 'trx_id', 'manager_number', 'member_number', 'manager', 'member', 'slot'];

/**
 * Whether a value is an object holding account data: one of ACCOUNT_FIELDS, not null, and not merely the request's
 * own value said back (a refusal may echo the trx_id or the number it was sent: that reveals nothing).
 */
function accountFields(v: unknown, sent: ReadonlySet<string>): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return ACCOUNT_FIELDS.some((k) => {
    const x = (v as Record<string, unknown>)[k];
    return x !== undefined && x !== null && !sent.has(String(x)) && !sent.has(to62(x));
  });
}

/**
 * Whether a value is a transaction status record (the lookup's `data`: a trx_id and its status): even when its
 * trx_id is the one asked for, its status SUCCESS (the one state the description names) is the account's.
 */
function transactionRecord(v: unknown, refusalStatus: unknown): boolean {
  const r = v as Record<string, unknown> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.trx_id === 'string' &&
    typeof r.status === 'string' &&
    // The refusal's own word said again beside the ID asked for reveals nothing; the one state the provider names
    // (SUCCESS) is the transaction's.
    r.status !== refusalStatus &&
    r.status.toUpperCase() === 'SUCCESS'
  );
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
    // Account data, not the names of fields: a refusal may carry `detail: "Invalid API key"`, `data: {}`,
    // `data: {errors: ...}` or nulls. A balance, an invite's detail, a record or a list of records is data.
    if (body.saldo !== undefined && body.saldo !== null)
      out.push(finding(api, 'AUTH-1', ex, '$.saldo', '(absent: no balance for a bad key)', body.saldo));
    if (accountFields(body.detail, sent))
      out.push(finding(api, 'AUTH-1', ex, '$.detail', '(absent: no invite detail)', body.detail));
    const data = body.data;
    const hasRecords = Array.isArray(data)
      ? data.some((r) => accountFields(r, sent))
      : accountFields(data, sent) || transactionRecord(data, body.status);
    if (hasRecords) out.push(finding(api, 'AUTH-1', ex, '$.data', '(absent or empty: no records)', data));
    return out;
  },
});

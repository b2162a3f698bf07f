import { bodyOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

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
    const out = [];
    if (body.ok === true) out.push(finding(api, 'AUTH-1', ex, '$.ok', 'not true for a bad api_key', body.ok));
    if ('saldo' in body)
      out.push(finding(api, 'AUTH-1', ex, '$.saldo', '(absent: no balance for a bad key)', body.saldo));
    if ('detail' in body) out.push(finding(api, 'AUTH-1', ex, '$.detail', '(absent: no invite detail)', body.detail));
    const data = body.data;
    const hasRecords = Array.isArray(data) ? data.length > 0 : data !== undefined && data !== null;
    if (hasRecords) out.push(finding(api, 'AUTH-1', ex, '$.data', '(absent or empty: no records)', data));
    return out;
  },
});

import { bodyOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { expectSuccess, finding, param } from './util.js';

/** TRX-1: an existing transaction: ok true, data.trx_id equals the requested ID, data.status a string. */
export const trx1 = defineCheck({
  id: 'TRX-1',
  title: 'an existing transaction is found with its own trx_id and a status',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const out = expectSuccess(api, 'TRX-1', ex);
    const requested = param(api, ex, 'trx_id');
    const data = bodyOf(ex)?.data as Record<string, unknown> | undefined;
    if (out.length === 0 && requested !== undefined && data?.trx_id !== requested) {
      out.push(finding(api, 'TRX-1', ex, '$.data.trx_id', JSON.stringify(requested), data?.trx_id));
    }
    return out;
  },
});

import { bodyOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { expectSuccess, finding, param } from './util.js';

/** INV-1: a successful invite has the documented shape and echoes the request's trx_id. */
export const inv1 = defineCheck({
  id: 'INV-1',
  title: 'a successful invite has the documented result and echoes trx_id',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const out = expectSuccess(api, 'INV-1', ex);
    const requested = param(api, ex, 'trx_id');
    const got = bodyOf(ex)?.trx_id;
    if (out.length === 0 && requested !== undefined && got !== requested) {
      out.push(finding(api, 'INV-1', ex, '$.trx_id', JSON.stringify(requested), got));
    }
    return out;
  },
});

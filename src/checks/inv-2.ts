import { bodyOf } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** INV-2: detail.member is the requested msisdn in 62-form. */
export const inv2 = defineCheck({
  id: 'INV-2',
  title: 'detail.member is the requested msisdn in 62-form',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const body = bodyOf(ex);
    if (body?.ok !== true) return [];
    const msisdn = param(api, ex, 'msisdn');
    if (msisdn === undefined) return [];
    const member = (body.detail as Record<string, unknown> | undefined)?.member;
    const want = to62(msisdn);
    return member === want ? [] : [finding(api, 'INV-2', ex, '$.detail.member', JSON.stringify(want), member)];
  },
});

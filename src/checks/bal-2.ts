import { bodyOf, saldoOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** BAL-2: a successful invite never raises the balance. */
export const bal2 = defineCheck({
  id: 'BAL-2',
  title: 'a successful invite never raises the balance',
  scope: 'multi',
  needs: ['invite', 'saldoBefore', 'saldoAfter'],
  run(ev, { api }) {
    const { invite, saldoBefore, saldoAfter } = ev;
    if (bodyOf(invite)?.ok !== true) return [];
    // A balance that cannot be read is BAL-1's finding; BAL-2 has nothing to compare (the scenario says so).
    const before = saldoOf(saldoBefore);
    const after = saldoOf(saldoAfter);
    if (before === undefined || after === undefined) return [];
    return after > before
      ? [finding(api, 'BAL-2', saldoAfter, '$.saldo', `<= ${before} (the balance before the invite)`, after)]
      : [];
  },
});

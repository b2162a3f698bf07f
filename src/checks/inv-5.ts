import { records, saldoOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** INV-5: a used trx_id never creates a second transaction: one history record at most, one charge at most. */
export const inv5 = defineCheck({
  id: 'INV-5',
  title: 'a repeated trx_id creates no second transaction and no second charge',
  scope: 'multi',
  // The balance reads are optional: without them only history judges (a guarded invite that was carried out).
  needs: ['invite', 'repeats', 'history'],
  run(ev, { api }) {
    const { invite, history } = ev;
    const trxId = param(api, invite, 'trx_id');
    const out = [];
    const carrying = (records(history) ?? []).filter((r) => r.trx_id === trxId);
    if (carrying.length > 1) {
      out.push(
        finding(
          api,
          'INV-5',
          history,
          '$.data',
          `at most 1 record with trx_id ${String(trxId)}`,
          `${carrying.length} records`,
        ),
      );
    }
    const before = saldoOf(ev.saldoBefore);
    const after = saldoOf(ev.saldoAfter);
    const between = saldoOf(ev.saldoBetween);
    const single = between !== undefined && before !== undefined ? before - between : ev.unitPrice;
    // Balances may have a fraction (BAL-1): a charge counts as more than one only past rounding.
    const more = (a: number, b: number): boolean => a - b > 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    if (before !== undefined && after !== undefined && single !== undefined && more(before - after, single)) {
      out.push(
        finding(
          api,
          'INV-5',
          ev.saldoAfter ?? history,
          '$.saldo',
          `a charge of at most ${single} (one invite)`,
          `a charge of ${before - after}`,
        ),
      );
    }
    return out;
  },
});

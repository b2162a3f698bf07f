import { bodyOf, records, saldoOf } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import type { Exchange } from '../openapi/types.js';
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
    // A repeat for another member answered as carried out for that member (not the first answer said again): a
    // second transaction, whatever the balance and history show.
    const first = memberOf(invite);
    for (const [i, repeat] of ev.repeats.entries()) {
      const sent = param(api, repeat, 'msisdn');
      const said = memberOf(repeat);
      if (bodyOf(repeat)?.ok !== true || sent === undefined || said === undefined) continue;
      if (to62(said) === to62(sent) && to62(sent) !== first)
        out.push(
          finding(
            api,
            'INV-5',
            repeat,
            '$.detail.member',
            `a refusal, or the first invite's answer again (member ${first ?? '?'}), for the used trx_id ${String(trxId)}`,
            `carried out for another member (repeat ${i + 1})`,
          ),
        );
    }
    const before = saldoOf(ev.saldoBefore);
    const after = saldoOf(ev.saldoAfter);
    const between = saldoOf(ev.saldoBetween);
    const single = between !== undefined && before !== undefined ? before - between : ev.unitPrice;
    // Balances may have a fraction (BAL-1): a charge counts as more than one only past rounding.
    const tiny = (a: number, b: number): number => 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    const more = (a: number, b: number): boolean => a - b > tiny(a, b);
    // A second charge is the price again (or more of it): a drop of another size is someone else's, and so is any
    // drop while another client of the account was seen at work (the run cannot tell whose it is).
    const extra = before !== undefined && after !== undefined && single !== undefined ? before - after - single : 0;
    const times = single ? extra / single : 0;
    const ours =
      !ev.othersActive &&
      times >= 1 - 1e-9 &&
      Math.abs(times - Math.round(times)) * (single ?? 0) <= tiny(extra, single ?? 0) + 1e-6;
    if (before !== undefined && after !== undefined && single !== undefined && more(before - after, single) && ours) {
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

/** The member an invite's answer names, in 62-form. */
function memberOf(ex: Exchange): string | undefined {
  const member = (bodyOf(ex)?.detail as { member?: unknown } | undefined)?.member;
  return typeof member === 'string' ? to62(member) : undefined;
}

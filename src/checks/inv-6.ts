import { bodyOf, hasDataRecord, records } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import { historyComplete } from './outcome.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** INV-6: a successful invite is found by cek-trx-id (SUCCESS) and by history q=<trx_id>, with its numbers. */
export const inv6 = defineCheck({
  id: 'INV-6',
  title: 'a successful invite can be seen in cek-trx-id and history',
  scope: 'multi',
  needs: ['invite', 'lookup', 'history'],
  run(ev, { api }) {
    const { invite, lookup, history } = ev;
    const inv = bodyOf(invite);
    if (inv?.ok !== true) return [];
    const trxId = param(api, invite, 'trx_id');
    const detail = (inv.detail ?? {}) as Record<string, unknown>;
    const out = [];
    // Found: ok true and a record with status SUCCESS. Whether the record echoes the ID exactly is TRX-1's clause.
    const lk = bodyOf(lookup);
    const data = (lk?.data ?? {}) as Record<string, unknown>;
    if (lk?.ok !== true || !hasDataRecord(lk) || data.status !== 'SUCCESS') {
      out.push(
        finding(
          api,
          'INV-6',
          lookup,
          '$.data',
          `ok true and data {trx_id: ${String(trxId)}, status: SUCCESS}`,
          lk ? { ok: lk.ok, data: lk.data } : '(not JSON)',
        ),
      );
    }
    // The record of this invite: of the records carrying its trx_id (more than one is INV-5's to judge), the one
    // with its numbers, else the first.
    const carrying = (records(history) ?? []).filter((r) => r.trx_id === trxId);
    const same = (r: Record<string, unknown>): boolean =>
      to62(r.manager_number) === to62(detail.manager) && to62(r.member_number) === to62(detail.member);
    const rec = carrying.find(same) ?? carrying[0];
    // An answer that reached its limit without the record may hold it on another page: a q that narrows nothing is
    // HIS-4's to judge, not a record gone missing.
    if (!rec && historyComplete(api, history) === false) return out;
    if (!rec) {
      out.push(finding(api, 'INV-6', history, '$.data', `a record with trx_id ${String(trxId)}`, '(none)'));
    } else {
      for (const [field, want] of [
        ['manager_number', detail.manager],
        ['member_number', detail.member],
      ] as const) {
        if (to62(rec[field]) !== to62(want)) {
          out.push(
            finding(api, 'INV-6', history, `$.data[].${field}`, `${String(want)} (detail of the invite)`, rec[field]),
          );
        }
      }
    }
    return out;
  },
});

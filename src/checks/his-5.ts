import { records } from '../openapi/exchange.js';
import { historyComplete } from './outcome.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/**
 * HIS-5: a filter taken from an existing record returns that record. Judged only on a complete answer
 * (fewer records than its limit): a page that reached its limit may hold the record on another page.
 */
export const his5 = defineCheck({
  id: 'HIS-5',
  title: 'a filter does not hide the record it matches',
  scope: 'multi',
  needs: ['exchange', 'expectedRecord'],
  run(ev, { api }) {
    const { exchange: ex, expectedRecord } = ev;
    const data = records(ex);
    if (data?.some((r) => r.trx_id === expectedRecord.trx_id)) return [];
    if (data && historyComplete(api, ex) !== true) return [];
    return [
      finding(
        api,
        'HIS-5',
        ex,
        '$.data',
        `a record with trx_id ${String(expectedRecord.trx_id)}`,
        data ? `${data.length} records without it` : '(no data)',
      ),
    ];
  },
});

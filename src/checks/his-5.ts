import { bodyOf, recordOf, records } from '../openapi/exchange.js';
import { historyComplete } from './outcome.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/**
 * Whether HIS-5 judges a query with these filters (canonical names): "month/year" takes a month with its year,
 * since a month alone may be read as the current year's (the provider does not say).
 */
export function his5Judges(filters: readonly string[]): boolean {
  return !filters.includes('month') || filters.includes('year');
}

/**
 * HIS-5: a filter taken from an existing record returns that record. Judged only on a complete answer
 * (fewer records than its limit): a page that reached its limit may hold the record on another page; a month
 * counts with its year.
 */
export const his5 = defineCheck({
  id: 'HIS-5',
  title: 'a filter does not hide the record it matches',
  scope: 'multi',
  needs: ['exchange', 'expectedRecord'],
  run(ev, { api }) {
    const { exchange: ex, expectedRecord } = ev;
    const sent = api.foldRequest(ex.endpoint, ex.params).params;
    const given = ['date', 'month', 'year', 'q'].filter((n) => sent[n] !== undefined);
    // A provider may also refuse a combination of filters, or a search text below a length of its own (size
    // limits are not shown): that hides no record the clause's own filters match.
    if (!his5Judges(given)) return [];
    const shortQ = sent.q !== undefined && String(sent.q).length < 8;
    if (bodyOf(ex)?.ok === false && (given.length > 1 || shortQ)) return [];
    const data = records(ex);
    if (recordOf(ex, expectedRecord.trx_id)) return [];
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

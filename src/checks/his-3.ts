import { records } from '../openapi/exchange.js';
import { dateFilters, dateKeeps } from './filters.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/**
 * HIS-3: date, month and year filters return only records that match every given filter. Judged on the
 * filters a provider can read one way only (filters.ts).
 */
export const his3 = defineCheck({
  id: 'HIS-3',
  title: 'date, month and year filters return only matching records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => Object.keys(dateFilters(api, ex)).length > 0,
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const f = dateFilters(api, ex);
    if (Object.keys(f).length === 0) return [];
    const wanted = [
      f.year !== undefined ? `year ${f.year}` : '',
      f.month !== undefined ? `month ${f.month}` : '',
      f.day !== undefined ? `day ${f.day}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const out = [];
    for (const [i, r] of (records(ex) ?? []).entries()) {
      if (!dateKeeps(String(r.date ?? ''), f))
        out.push(finding(api, 'HIS-3', ex, `$.data[${i}].date`, `a date of ${wanted}`, r.date));
    }
    return out;
  },
});

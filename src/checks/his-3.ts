import { records } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** HIS-3: date, month and year filters return only records that match every given filter. */
export const his3 = defineCheck({
  id: 'HIS-3',
  title: 'date, month and year filters return only matching records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => ['date', 'month', 'year'].some((n) => param(api, ex, n) !== undefined),
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const data = records(ex) ?? [];
    const date = param(api, ex, 'date');
    const month = param(api, ex, 'month');
    const year = param(api, ex, 'year');
    const out = [];
    for (const [i, r] of data.entries()) {
      const d = String(r.date ?? '');
      const wanted = [
        date !== undefined && d !== String(date) ? `date ${String(date)}` : '',
        month !== undefined && d.slice(5, 7) !== String(month) ? `month ${String(month)}` : '',
        year !== undefined && d.slice(0, 4) !== String(year) ? `year ${String(year)}` : '',
      ].filter(Boolean);
      if (wanted.length)
        out.push(finding(api, 'HIS-3', ex, `$.data[${i}].date`, `a date of ${wanted.join(', ')}`, r.date));
    }
    return out;
  },
});

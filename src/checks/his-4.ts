import { records, to62 } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** Fields q is matched against; product fields are not documented, so they count only when present. */
const SEARCHED = ['manager_number', 'member_number', 'trx_id', 'product', 'product_code', 'produk'];

/** HIS-4: q=S returns only records in which S occurs in a number, the transaction ID or the product. */
export const his4 = defineCheck({
  id: 'HIS-4',
  title: 'q=S returns only records that contain S',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => param(api, ex, 'q') !== undefined,
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const q = param(api, ex, 'q');
    if (q === undefined) return [];
    // Case and surrounding spaces are not shown by the provider: an occurrence in any letter case counts.
    const s = String(q).trim().toLowerCase();
    if (s === '') return [];
    const out = [];
    for (const [i, r] of (records(ex) ?? []).entries()) {
      const hit = SEARCHED.some((k) => {
        const v = r[k];
        if (typeof v !== 'string') return false;
        return v.toLowerCase().includes(s) || (k.endsWith('_number') && to62(v).includes(to62(s)));
      });
      if (!hit)
        out.push(finding(api, 'HIS-4', ex, `$.data[${i}]`, `a record containing ${JSON.stringify(s)}`, r.trx_id));
    }
    return out;
  },
});

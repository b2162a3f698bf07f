import { records, to62 } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** Fields q is matched against; product fields are not documented, so they count only when present. */
const SEARCHED = ['manager_number', 'member_number', 'trx_id', 'product', 'product_code', 'produk'];
const PRODUCT = SEARCHED.slice(3);
/** A phone number: no product can contain it (the clause's own example). */
const PHONE_LIKE = /^\+?\d{7,16}$/;

/**
 * HIS-4: q=S returns only records in which S occurs in a number, the transaction ID or the product; judged where
 * the product is shown or S cannot be in one (the clause: "checked with an S that no product can contain").
 */
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
    const recs = records(ex) ?? [];
    // S may occur in a record's product, which history does not show: a record without one is judged only when S
    // is something no product can contain, a phone number or a transaction ID (one of this answer's trx_ids).
    const noProductHasIt =
      PHONE_LIKE.test(s) || recs.some((r) => typeof r.trx_id === 'string' && r.trx_id.toLowerCase() === s);
    for (const [i, r] of recs.entries()) {
      if (!noProductHasIt && !PRODUCT.some((k) => typeof r[k] === 'string')) continue;
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

import { records } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { Exchange } from '../openapi/types.js';
import { qOccursIn } from './filters.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** A phone number: no product can contain it (the clause's own example). */
const PHONE_LIKE = /^\+?\d{7,16}$/;
/** Nine digits in a row, as many as the shortest phone number holds: a part of a number, never of a product. */
const NUMBER_PART = /\d{9}/;

/**
 * S, as HIS-4 judges it (trimmed, any case), or undefined where HIS-4 has nothing to judge: no q, or an S that a
 * product could contain. A product may be matched by its code or its name, which history may show under any field
 * or not at all: as the clause says, HIS-4 is judged only with an S that no product can contain, a phone number
 * or a transaction ID of eight characters or more (one of this answer's trx_ids), or any S that holds nine digits in a row (a part of a phone
 * number: with a wildcard of SQL LIKE or a regular expression in it, say), or a value the run wrote outside the
 * clause's fields (`foreignQuery`: a member's name in another script).
 */
function judgedQuery(api: ApiModel, ex: Exchange, foreign = false): string | undefined {
  const q = param(api, ex, 'q');
  if (q === undefined) return undefined;
  const s = String(q).trim().toLowerCase();
  if (s === '') return undefined;
  const productFree =
    foreign ||
    PHONE_LIKE.test(s) ||
    NUMBER_PART.test(s) ||
    // A transaction ID of eight characters or more: a short one (`75`) may stand in a product's name.
    (s.length >= 8 && (records(ex) ?? []).some((r) => typeof r.trx_id === 'string' && r.trx_id.toLowerCase() === s));
  return productFree ? s : undefined;
}

/**
 * HIS-4: q=S returns only records in which S occurs in a number, the transaction ID or the product; judged only
 * where S cannot be in a product (the clause: "checked with an S that no product can contain").
 */
export const his4 = defineCheck({
  id: 'HIS-4',
  title: 'q=S returns only records that contain S',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => judgedQuery(api, ex) !== undefined,
  run(ev, { api }) {
    const { exchange: ex } = ev;
    // Case and surrounding spaces are not shown by the provider: an occurrence in any letter case counts.
    const s = judgedQuery(api, ex, ev.foreignQuery);
    if (s === undefined) return [];
    const out = [];
    for (const [i, r] of (records(ex) ?? []).entries()) {
      const hit = qOccursIn(r, s, 'may');
      if (!hit)
        out.push(finding(api, 'HIS-4', ex, `$.data[${i}]`, `a record containing ${JSON.stringify(s)}`, r.trx_id));
    }
    return out;
  },
});

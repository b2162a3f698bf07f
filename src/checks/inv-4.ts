import { defineCheck } from './types.js';
import { mustBeRefused } from './util.js';

/** INV-4: a request missing a required parameter, or with a kind other than akrab or circle, is refused with ok false. */
export const inv4 = defineCheck({
  id: 'INV-4',
  title: 'a request missing trx_id, product_code or msisdn, or with a bad kind, is refused',
  scope: 'refusal',
  needs: ['exchange'],
  run(ev, { api }) {
    return mustBeRefused(api, 'INV-4', ev.exchange);
  },
});

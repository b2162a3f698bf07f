import type { Check } from './types.js';
import { expectSuccess, need } from './util.js';

/** HIS-1: data is an array of records with string trx_id, manager_number, member_number and a YYYY-MM-DD date. */
export const his1: Check = {
  id: 'HIS-1',
  title: 'history data is an array of well-formed records',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange } = need(this, ev, 'exchange');
    return expectSuccess(api, 'HIS-1', exchange);
  },
};

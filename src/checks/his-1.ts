import { defineCheck } from './types.js';
import { expectSuccess } from './util.js';

/** HIS-1: data is an array of records with string trx_id, manager_number, member_number and a YYYY-MM-DD date. */
export const his1 = defineCheck({
  id: 'HIS-1',
  title: 'history data is an array of well-formed records',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange } = ev;
    return expectSuccess(api, 'HIS-1', exchange);
  },
});

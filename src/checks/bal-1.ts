import { defineCheck } from './types.js';
import { expectSuccess } from './util.js';

/** BAL-1: ok true, status SUCCESS, saldo a number (an integer, as documented). */
export const bal1 = defineCheck({
  id: 'BAL-1',
  title: 'saldo-user answers ok true, status SUCCESS and an integer saldo',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange } = ev;
    return expectSuccess(api, 'BAL-1', exchange);
  },
});

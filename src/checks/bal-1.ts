import { defineCheck } from './types.js';
import { expectSuccess } from './util.js';

/** BAL-1: ok true, status SUCCESS, saldo a number (the documented response has an integer; a fraction keeps the clause). */
export const bal1 = defineCheck({
  id: 'BAL-1',
  title: 'saldo-user answers ok true, status SUCCESS and a number saldo',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange } = ev;
    return expectSuccess(api, 'BAL-1', exchange);
  },
});

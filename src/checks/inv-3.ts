import { defineCheck } from './types.js';
import { mustBeRefused } from './util.js';

/** INV-3: a bad msisdn is refused with ok false. */
export const inv3 = defineCheck({
  id: 'INV-3',
  title: 'an msisdn not beginning with 08 or 62, or not all digits, is refused',
  scope: 'refusal',
  needs: ['exchange'],
  run(ev, { api }) {
    return mustBeRefused(api, 'INV-3', ev.exchange);
  },
});

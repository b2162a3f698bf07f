import { compareOutcomes } from './outcome.js';
import type { Check } from './types.js';
import { need } from './util.js';

/** ENV-2: GET and POST with the same parameters give the same outcome. */
export const env2: Check = {
  id: 'ENV-2',
  title: 'GET and POST with the same parameters give the same outcome',
  scope: 'multi',
  needs: ['pair'],
  run(ev, { api }) {
    const { pair } = need(this, ev, 'pair');
    return compareOutcomes(api, 'ENV-2', pair[0], pair[1]);
  },
};

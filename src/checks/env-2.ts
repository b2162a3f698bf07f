import { compareOutcomes } from './outcome.js';
import { defineCheck } from './types.js';

/** ENV-2: GET and POST with the same parameters give the same outcome. */
export const env2 = defineCheck({
  id: 'ENV-2',
  title: 'GET and POST with the same parameters give the same outcome',
  scope: 'multi',
  needs: ['pair'],
  run(ev, { api }) {
    const { pair } = ev;
    return compareOutcomes(api, 'ENV-2', pair[0], pair[1]);
  },
});

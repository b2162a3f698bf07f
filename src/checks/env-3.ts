import { compareOutcomes } from './outcome.js';
import { defineCheck } from './types.js';

/** ENV-3: an alias gives the same outcome as its canonical name. pair = [canonical, alias]. */
export const env3 = defineCheck({
  id: 'ENV-3',
  title: 'every alias gives the same outcome as its canonical name',
  scope: 'multi',
  needs: ['pair'],
  run(ev, { api }) {
    const { pair } = ev;
    return compareOutcomes(api, 'ENV-3', pair[0], pair[1]);
  },
});

import { ajvErrorsToFindings } from '../spec/findings.js';
import type { Check } from './types.js';
import { finding, need, where } from './util.js';

/** ENV-1: every response is a JSON object with a boolean `ok` and a string `status`. */
export const env1: Check = {
  id: 'ENV-1',
  title: 'every response is a JSON object with boolean ok and string status',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { spec }) {
    const { exchange: ex } = need(this, ev, 'exchange');
    if (ex.body === undefined) {
      return [finding(spec, 'ENV-1', ex, '$', 'a JSON body', ex.bodyText.slice(0, 80) || '(empty body)')];
    }
    const at = where(spec, ex);
    return ajvErrorsToFindings(spec.envelopeErrors(ex.body), 'ENV-1', ex, ex.body).map((f) => ({ ...f, ...at }));
  },
};

import { ajvErrorsToFindings } from '../openapi/ajv-errors.js';
import { MAX_JSON_DEPTH } from '../shared/json.js';
import { defineCheck } from './types.js';
import { finding, where } from './util.js';

/** ENV-1: every response is a JSON object with a boolean `ok` and a string `status`. */
export const env1 = defineCheck({
  id: 'ENV-1',
  title: 'every response is a JSON object with boolean ok and string status',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    if (ex.body === undefined) {
      return [
        ex.bodyProblem
          ? finding(api, 'ENV-1', ex, '$', `a JSON object at most ${MAX_JSON_DEPTH} levels deep`, ex.bodyProblem)
          : finding(api, 'ENV-1', ex, '$', 'a JSON body', ex.bodyText.slice(0, 80) || '(empty body)'),
      ];
    }
    const at = where(api, ex);
    return ajvErrorsToFindings(api.envelopeErrors(ex.body), 'ENV-1', ex, ex.body).map((f) => ({ ...f, ...at }));
  },
});

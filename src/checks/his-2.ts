import { records } from '../openapi/exchange.js';
import { limitOf } from './filters.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** HIS-2: limit=N returns at most N records (N a count a provider can read one way only). */
export const his2 = defineCheck({
  id: 'HIS-2',
  title: 'limit=N returns at most N records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => limitOf(api, ex) !== undefined,
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const limit = limitOf(api, ex);
    const data = records(ex);
    if (!data || limit === undefined || data.length <= limit) return [];
    return [finding(api, 'HIS-2', ex, '$.data.length', `<= ${limit} (limit)`, data.length)];
  },
});

import { records } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding, param } from './util.js';

/** HIS-2: limit=N returns at most N records. */
export const his2 = defineCheck({
  id: 'HIS-2',
  title: 'limit=N returns at most N records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => param(api, ex, 'limit') !== undefined,
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const limit = Number(param(api, ex, 'limit'));
    const data = records(ex);
    if (!data || !Number.isInteger(limit) || data.length <= limit) return [];
    return [finding(api, 'HIS-2', ex, '$.data.length', `<= ${limit} (limit)`, data.length)];
  },
});

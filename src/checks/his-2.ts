import { records } from '../openapi/exchange.js';
import type { Check } from './types.js';
import { finding, need, param } from './util.js';

/** HIS-2: limit=N returns at most N records. */
export const his2: Check = {
  id: 'HIS-2',
  title: 'limit=N returns at most N records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { api }) => param(api, ex, 'limit') !== undefined,
  run(ev, { api }) {
    const { exchange: ex } = need(this, ev, 'exchange');
    const limit = Number(param(api, ex, 'limit'));
    const data = records(ex);
    if (!data || !Number.isInteger(limit) || data.length <= limit) return [];
    return [finding(api, 'HIS-2', ex, '$.data.length', `<= ${limit} (limit)`, data.length)];
  },
};

import type { Check } from './types.js';
import { finding, need, param, records } from './util.js';

/** HIS-2: limit=N returns at most N records. */
export const his2: Check = {
  id: 'HIS-2',
  title: 'limit=N returns at most N records',
  scope: 'response',
  needs: ['exchange'],
  applies: (ex, { spec }) => param(spec, ex, 'limit') !== undefined,
  run(ev, { spec }) {
    const { exchange: ex } = need(this, ev, 'exchange');
    const limit = Number(param(spec, ex, 'limit'));
    const data = records(ex);
    if (!data || !Number.isInteger(limit) || data.length <= limit) return [];
    return [finding(spec, 'HIS-2', ex, '$.data.length', `<= ${limit} (limit)`, data.length)];
  },
};

import { bodyOf } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** ENV-4: success is ok true with status SUCCESS; a refusal (also any HTTP error status) is ok false. */
export const env4 = defineCheck({
  id: 'ENV-4',
  title: 'success is ok true with status SUCCESS; a refusal has ok false',
  scope: 'response',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const body = bodyOf(ex);
    if (!body || typeof body.ok !== 'boolean') return [];
    if (body.ok && body.status !== 'SUCCESS') {
      return [finding(api, 'ENV-4', ex, '$.status', '"SUCCESS" when ok is true', body.status)];
    }
    if (!body.ok && body.status === 'SUCCESS') {
      return [finding(api, 'ENV-4', ex, '$.ok', 'true when status is SUCCESS', body.ok)];
    }
    if (body.ok && ex.httpStatus >= 400) {
      return [finding(api, 'ENV-4', ex, '$.ok', `false with HTTP ${ex.httpStatus}`, body.ok)];
    }
    return [];
  },
});

import { bodyOf, hasDataRecord } from '../openapi/exchange.js';
import { defineCheck } from './types.js';
import { finding } from './util.js';

/** TRX-2: an ID that does not exist never answers ok true with a data record (null, `{}` or `[]` is none). */
export const trx2 = defineCheck({
  id: 'TRX-2',
  title: 'an unknown transaction ID is never found',
  scope: 'refusal',
  needs: ['exchange'],
  run(ev, { api }) {
    const { exchange: ex } = ev;
    const body = bodyOf(ex);
    if (body?.ok === true && hasDataRecord(body)) {
      return [
        finding(
          api,
          'TRX-2',
          ex,
          '$',
          'ok false or no data for an unknown trx_id',
          `ok=true data=${JSON.stringify(body.data)}`,
        ),
      ];
    }
    return [];
  },
});

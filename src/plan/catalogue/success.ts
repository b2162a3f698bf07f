import type { ApiModel } from '../../openapi/load.js';
import { METHODS, type ReadOnlyEndpoint } from '../../openapi/types.js';
import { baseParams } from '../sampling.js';
import { type Area, judge, rename, type Scenario } from '../scenario.js';
import { SUCCESS_CLAUSES } from './common.js';

/**
 * The success clauses of a read endpoint (BAL-1, HIS-1, TRX-1) on both methods, with every name of api_key,
 * and on cek-trx-id every name of trx_id.
 */
export function successScenarios(api: ApiModel, endpoint: ReadOnlyEndpoint, area: Area): Scenario[] {
  const out: Scenario[] = [];
  const clauses = SUCCESS_CLAUSES[endpoint];
  for (const method of METHODS) {
    for (const keyName of api.namesOf(endpoint, 'api_key')) {
      for (const trxName of endpoint === 'cek-trx-id' ? api.namesOf(endpoint, 'trx_id') : ['']) {
        const aliases = [keyName, trxName].filter((n) => n && n !== 'api_key' && n !== 'trx_id');
        out.push({
          title: `${clauses.join(' ')} ${endpoint} ${method}${aliases.length ? ` via ${aliases.join(',')}` : ''}: an ordinary call succeeds`,
          clauses,
          area,
          endpoint,
          methods: [method],
          aliases,
          needs: endpoint === 'cek-trx-id' ? ['known-trx'] : [],
          requests: 1,
          async run(ctx) {
            let params = rename(baseParams(ctx, endpoint), 'api_key', keyName);
            if (trxName) params = rename(params, 'trx_id', trxName);
            const ex = await ctx.send(endpoint, method, params);
            return clauses.map((c) => judge(c, { exchange: ex }));
          },
        });
      }
    }
  }
  return out;
}

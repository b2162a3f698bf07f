import type { ApiModel } from '../../openapi/load.js';
import { METHODS } from '../../openapi/types.js';
import { judge, type Scenario } from '../scenario.js';
import { successScenarios } from './success.js';

/** The lookup area: TRX-1 on a known transaction, TRX-2 on one that cannot exist. */
export function lookupScenarios(api: ApiModel): Scenario[] {
  const out = successScenarios(api, 'cek-trx-id', 'lookup');
  for (const method of METHODS) {
    out.push({
      title: `TRX-2 cek-trx-id ${method}: an unknown ID is not found`,
      clauses: ['TRX-2'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: [],
      requests: 1,
      async run(ctx) {
        const ex = await ctx.send('cek-trx-id', method, {
          api_key: ctx.target.apiKey,
          trx_id: `${ctx.newTrxId()}-NOPE`,
        });
        return [judge('TRX-2', { exchange: ex })];
      },
    });
  }
  return out;
}

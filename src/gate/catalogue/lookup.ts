import { bodyOf, hasDataRecord } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import { METHODS } from '../../openapi/types.js';
import { judge, PreconditionFailed, type Scenario } from '../scenario.js';
import { TRX_KINDS, trxKind } from '../trx-ids.js';
import { successScenarios } from './success.js';

/**
 * The lookup area: TRX-1 on a known transaction and, with writes, on the run's own transactions of every kind of
 * ID (digits only, lower, upper and mixed case, 64 characters); TRX-2 on unknown IDs of every kind.
 */
export function lookupScenarios(api: ApiModel): Scenario[] {
  const out = successScenarios(api, 'cek-trx-id', 'lookup');
  for (const method of METHODS) {
    out.push({
      title: `TRX-2 cek-trx-id ${method}: unknown IDs of every kind are not found`,
      clauses: ['TRX-2'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: [],
      requests: TRX_KINDS.length,
      async run(ctx) {
        // Fresh IDs of this run, never invited: one of each kind in turn (trx-ids.ts).
        const ids = TRX_KINDS.map(() => ctx.newTrxId());
        const answers = await Promise.all(
          ids.map((trx_id) => ctx.send('cek-trx-id', method, { api_key: ctx.target.apiKey, trx_id })),
        );
        return answers.map((exchange) => judge('TRX-2', { exchange }));
      },
    });
    out.push({
      title: `TRX-1 cek-trx-id ${method}: the run's own transactions are found, one of every kind of ID`,
      clauses: ['TRX-1'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: [],
      afterWrites: true,
      requests: TRX_KINDS.length,
      settles: true,
      async run(ctx) {
        const byKind = new Map<string, string>();
        for (const id of ctx.ownTrxIds()) if (!byKind.has(trxKind(id))) byKind.set(trxKind(id), id);
        if (byKind.size === 0)
          throw new PreconditionFailed('no invite of this run was carried out: nothing to look up');
        const found = await Promise.all(
          [...byKind.values()].map((trx_id) =>
            ctx.settle(
              () => ctx.send('cek-trx-id', method, { api_key: ctx.target.apiKey, trx_id }),
              (ex) => (ex.body as { ok?: unknown } | undefined)?.ok === true,
            ),
          ),
        );
        // Whether the run's invites can be seen at all is INV-6's clause; TRX-1 judges what a lookup found.
        const records = found.filter((ex) => hasDataRecord(bodyOf(ex)));
        if (records.length === 0)
          throw new PreconditionFailed("none of the run's own transactions was found (INV-6 judges that)");
        return records.map((exchange) => judge('TRX-1', { exchange }));
      },
    });
  }
  return out;
}

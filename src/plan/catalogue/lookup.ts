import { bodyOf, hasDataRecord, recordOf } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import { type Exchange, METHODS } from '../../openapi/types.js';
import type { CarriedOut } from '../../target/invite-ledger.js';
import { oneOfEveryTrait } from '../../target/record-kinds.js';
import { TRX_KINDS, trxKind } from '../../target/trx-ids.js';
import { compareLimit } from '../sampling.js';
import { judge, PreconditionFailed, type Scenario } from '../scenario.js';
import { successScenarios } from './success.js';

/** The most invites of the run looked up afterwards, one of every way they were sent. */
const OWN_LOOKUPS = 16;

/** How an invite was sent, as traits: the kind of its ID, the name of its trx_id, and the rest (`CarriedOut.how`). */
const howSent = (own: CarriedOut): string[] => [
  `ID ${trxKind(own.trxId)}`,
  `trx_id as ${own.sentAs}`,
  ...(own.how ?? []),
];

/**
 * The lookup area: TRX-1 on a known transaction and, with writes, on the run's own transactions of every kind of
 * ID (digits only, lower, upper and mixed case, 64 characters), which INV-6 also finds in history; TRX-2 on
 * unknown IDs of every kind.
 */
export function lookupScenarios(api: ApiModel): Scenario[] {
  const out = successScenarios(api, 'cek-trx-id', 'lookup');
  for (const method of METHODS) {
    for (const name of api.namesOf('cek-trx-id', 'trx_id'))
      out.push({
        title: `TRX-2 cek-trx-id ${method}${name === 'trx_id' ? '' : ` via ${name}`}: unknown IDs of every kind are not found`,
        clauses: ['TRX-2'],
        area: 'lookup',
        endpoint: 'cek-trx-id',
        methods: [method],
        aliases: name === 'trx_id' ? [] : [name],
        requests: TRX_KINDS.length,
        async run(ctx) {
          // Fresh IDs of this run, never invited: one of each kind in turn (trx-ids.ts).
          const ids = TRX_KINDS.map(() => ctx.newTrxId());
          const answers = await Promise.all(
            ids.map((id) => ctx.send('cek-trx-id', method, { api_key: ctx.target.apiKey, [name]: id })),
          );
          return answers.map((exchange) => judge('TRX-2', { exchange }));
        },
      });
    out.push({
      title: `TRX-1 INV-6 cek-trx-id ${method}: the run's own transactions are found, one of every way they were sent`,
      clauses: ['TRX-1', 'INV-6'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: [],
      afterWrites: true,
      requests: 2 * OWN_LOOKUPS,
      settles: true,
      async run(ctx) {
        // One invite of every way the run sent one: every kind of ID, every name of every parameter, each method,
        // each form of the number, a parameter left out (a provider may record an invite sent as `nomor` with an
        // empty number, or leave a 62-form one PENDING).
        const picked = oneOfEveryTrait(ctx.ownInvites(), howSent, OWN_LOOKUPS);
        if (picked.length === 0)
          throw new PreconditionFailed('no invite of this run was carried out: nothing to look up');
        const key = { api_key: ctx.target.apiKey };
        const judgements = await Promise.all(
          picked.map(async ({ item: own }) => {
            const trx_id = own.trxId;
            // Until it shows as INV-6 asks (SUCCESS): a provider may show a new transaction PENDING for a while.
            const lookup = await ctx.settle(
              () => ctx.send('cek-trx-id', method, { ...key, trx_id }),
              (ex) =>
                (ex.body as { ok?: unknown } | undefined)?.ok === true &&
                (ex.body as { data?: { status?: unknown } }).data?.status === 'SUCCESS',
            );
            const history = await ctx.settle(
              () => ctx.send('history-transaksi', method, { ...key, q: trx_id, limit: compareLimit(ctx) }),
              (ex) => recordOf(ex, trx_id) !== undefined,
            );
            // The invite as it was answered: INV-6 compares history's numbers with its detail.
            const invite: Exchange = { ...lookup, endpoint: 'invite-member', params: { trx_id }, body: own.body };
            // Whether it can be seen at all is INV-6's clause; TRX-1 judges what a lookup found.
            return [
              judge('INV-6', { invite, lookup, history }),
              ...(hasDataRecord(bodyOf(lookup)) ? [judge('TRX-1', { exchange: lookup })] : []),
            ];
          }),
        );
        return judgements.flat();
      },
    });
  }
  return out;
}

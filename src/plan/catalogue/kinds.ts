import { bodyOf, RECORD_FIELDS, recordOf, records } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import { type Exchange, METHODS, type Method, type Params } from '../../openapi/types.js';
import type { HistoryRecord } from '../../target/target.js';
import { trxKind } from '../../target/trx-ids.js';
import { compareLimit, WRONG_KEY } from '../sampling.js';
import { type Judgement, judge, PreconditionFailed, type Scenario, type ScenarioContext } from '../scenario.js';
import { settledStates } from './common.js';

/**
 * The queries that must find a record by its own values, each narrowed by its trx_id or number so that the
 * answer can be complete: its date, its member number on its date, its month with its year, its year, its ID.
 */
function findingQueries(r: HistoryRecord): Params[] {
  const month = r.date?.slice(5, 7);
  const year = r.date?.slice(0, 4);
  return [
    { date: r.date, q: r.trx_id },
    { q: r.trx_id },
    { date: r.date, q: r.member_number },
    { month, year, q: r.trx_id },
    { year, q: r.trx_id },
  ];
}

/** A query's filters under the names of the i-th record: every other record takes the aliases. */
function named(api: ApiModel, p: Params, i: number): Params {
  if (i % 2 === 0) return p;
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [api.namesOf('history-transaksi', k)[1] ?? k, v]));
}

/** HIS-3, HIS-4 and HIS-5 on every query that must find a record (findingQueries), by one method. */
async function findEach(
  api: ApiModel,
  ctx: ScenarioContext,
  method: Method,
  recs: readonly HistoryRecord[],
): Promise<Judgement[]> {
  const read = (q: Params, i: number): Promise<Exchange> =>
    ctx.send('history-transaksi', method, {
      api_key: ctx.target.apiKey,
      limit: compareLimit(ctx),
      ...named(api, q, i),
    });
  const sends = recs.flatMap((r, i) =>
    findingQueries(r).map(async (q) => {
      const exchange = await read(q, i);
      const judged = [judge('HIS-3', { exchange }), judge('HIS-4', { exchange })];
      // An answer of other records without this one may be a page the provider cut for a search (its maximum of
      // `limit` may be its own per filter): the same filters narrowed by the record's own ID decide.
      const others = (records(exchange) ?? []).filter((x) => x.trx_id !== r.trx_id);
      if (q.q === r.trx_id || others.length === 0 || others.length === (records(exchange) ?? []).length - 1)
        return [...judged, judge('HIS-5', { exchange, expectedRecord: r })];
      const narrow = await read({ ...q, q: r.trx_id }, i);
      return [...judged, judge('HIS-5', { exchange: narrow, expectedRecord: r })];
    }),
  );
  return (await Promise.all(sends)).flat();
}

/** TRX-1 on a lookup of each record by every name of trx_id, and AUTH-1 on one with a wrong key. */
async function lookEach(
  api: ApiModel,
  ctx: ScenarioContext,
  method: Method,
  ids: readonly string[],
): Promise<Judgement[]> {
  const names = api.namesOf('cek-trx-id', 'trx_id');
  const sends = ids.map(async (id) => {
    const found = await Promise.all(
      names.map((n) => ctx.send('cek-trx-id', method, { api_key: ctx.target.apiKey, [n]: id })),
    );
    // The record's own state, as the real key shows it: a refusal of a wrong key must not say it either.
    const state = (found[0]?.body as { data?: { status?: unknown } } | undefined)?.data?.status;
    const wrong = await ctx.send('cek-trx-id', method, { api_key: WRONG_KEY, trx_id: id }, { mustRefuse: true });
    return [
      ...found.map((exchange) => judge('TRX-1', { exchange })),
      judge('AUTH-1', { exchange: wrong, ...(typeof state === 'string' ? { knownStatus: state } : {}) }),
    ];
  });
  return (await Promise.all(sends)).flat();
}

/**
 * Records of every kind the account shows (record-kinds.ts), the seeded ones and, after the run's invites, its
 * own: each is looked up by every name (TRX-1), asked for with a wrong key (AUTH-1: no record may come back), and
 * found by its own date, number, month, year and ID (HIS-3, HIS-4, HIS-5). A provider may get one kind wrong: a
 * FAILED transaction it cannot look up, an ID with punctuation it cannot search, a record of today a date filter
 * misses.
 */
export function kindScenarios(api: ApiModel): Scenario[] {
  const out: Scenario[] = [lookedUpAlike()];
  for (const method of METHODS) {
    out.push({
      title: `TRX-1 AUTH-1 cek-trx-id ${method}: a record of every kind is found by every name, never with a wrong key`,
      clauses: ['TRX-1', 'AUTH-1'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: ['trxid'],
      needs: ['history'],
      requests: 48,
      async run(ctx) {
        return lookEach(
          api,
          ctx,
          method,
          (ctx.data.kinds ?? []).map((k) => k.record.trx_id ?? ''),
        );
      },
    });
    out.push({
      title: `HIS-3 HIS-4 HIS-5 history-transaksi ${method}: a record of every kind is found by its own values`,
      clauses: ['HIS-3', 'HIS-4', 'HIS-5'],
      area: 'history',
      endpoint: 'history-transaksi',
      methods: [method],
      aliases: ['tanggal', 'bulan', 'tahun', 'search'],
      needs: ['history'],
      requests: 80,
      async run(ctx) {
        return findEach(
          api,
          ctx,
          method,
          (ctx.data.kinds ?? []).map((k) => k.record),
        );
      },
    });
    out.push({
      title: `HIS-5 TRX-1 AUTH-1 history-transaksi ${method}: the run's own records are found as the seeded ones are`,
      clauses: ['HIS-3', 'HIS-4', 'HIS-5', 'TRX-1', 'AUTH-1'],
      area: 'history',
      endpoint: 'history-transaksi',
      methods: [method],
      aliases: ['tanggal', 'bulan', 'tahun', 'search', 'trxid'],
      afterWrites: true,
      settles: true,
      requests: 40,
      async run(ctx) {
        // One of the run's carried-out invites of every kind of ID, as history shows it (its date is the
        // provider's, never the local clock's).
        const byKind = new Map<string, string>();
        for (const own of ctx.ownInvites())
          if (!byKind.has(trxKind(own.trxId))) byKind.set(trxKind(own.trxId), own.trxId);
        if (byKind.size === 0) throw new PreconditionFailed('no invite of this run was carried out: no own record');
        const shown = await Promise.all(
          [...byKind.values()].map(async (trx) => {
            const ex = await ctx.settle(
              () =>
                ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, q: trx, limit: compareLimit(ctx) }),
              (e) => recordOf(e, trx) !== undefined,
            );
            return ownRecord(ex, trx);
          }),
        );
        const recs = shown.filter((r): r is HistoryRecord => r !== undefined);
        // Not shown at all is INV-6's to judge (its own scenarios); nothing here to find it by.
        if (recs.length === 0) throw new PreconditionFailed("history shows none of the run's own invites");
        return [
          ...(await findEach(api, ctx, method, recs)),
          ...(await lookEach(
            api,
            ctx,
            method,
            recs.map((r) => r.trx_id ?? ''),
          )),
        ];
      },
    });
  }
  return out;
}

/**
 * ENV-2 on a lookup of a record of every kind: GET and POST give the same outcome. A provider may word one status
 * apart by method (FAILED by GET, GAGAL by POST), and only a lookup of a record of that status shows it.
 */
function lookedUpAlike(): Scenario {
  return {
    title: 'ENV-2 cek-trx-id GET+POST: a record of every kind is looked up alike by GET and POST',
    clauses: ['ENV-2'],
    area: 'lookup',
    endpoint: 'cek-trx-id',
    methods: ['GET', 'POST'],
    aliases: [],
    needs: ['history'],
    requests: 32,
    async run(ctx) {
      const key = { api_key: ctx.target.apiKey };
      const pairs = await Promise.all(
        (ctx.data.kinds ?? []).map(async ({ record }) => {
          const p = { ...key, trx_id: record.trx_id ?? '' };
          return settledStates(ctx, [await ctx.send('cek-trx-id', 'GET', p), await ctx.send('cek-trx-id', 'POST', p)]);
        }),
      );
      return pairs.map((pair) => judge('ENV-2', { pair }));
    },
  };
}

/** The documented fields of the record of `trx` in a history answer, when every one is a string. */
function ownRecord(ex: Exchange, trx: string): HistoryRecord | undefined {
  if (bodyOf(ex)?.ok !== true) return undefined;
  const r = recordOf(ex, trx);
  if (!r || !RECORD_FIELDS.every((k) => typeof r[k] === 'string')) return undefined;
  return Object.fromEntries(RECORD_FIELDS.map((k) => [k, String(r[k])]));
}

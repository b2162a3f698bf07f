import { his5Judges } from '../../checks/his-5.js';
import type { ApiModel } from '../../openapi/load.js';
import { isCalendarDate } from '../../openapi/shape.js';
import { METHODS, type Method, type Params } from '../../openapi/types.js';
import { compareLimit, sample } from '../sampling.js';
import { judge, type Scenario, type ScenarioContext } from '../scenario.js';
import { successScenarios } from './success.js';

/** Filter sets HIS-3 tries: each filter alone, and together. */
const FILTER_SETS: string[][] = [['date'], ['month'], ['year'], ['month', 'year'], ['date', 'month', 'year']];

/**
 * The history area: HIS-1 on both methods and every key name, HIS-2 with small limits, HIS-3 and HIS-5 for each
 * filter alone and together by every name, HIS-4 and HIS-5 for q by every name. Values come from the account's
 * own records; HIS-5 is judged on a query narrowed to a complete answer.
 */
export function historyScenarios(api: ApiModel): Scenario[] {
  return [
    ...successScenarios(api, 'history-transaksi', 'history'),
    ...METHODS.flatMap((method) => [
      ...limitScenarios(method),
      ...filterScenarios(api, method),
      recordEdgeScenario(method),
      ...emptyPeriodScenarios(api, method),
      ...qScenarios(api, method),
    ]),
    ...EMPTY_SETS.map(emptyPeriodPair),
  ];
}

/** Every name of a canonical parameter of history-transaksi. */
const namesOf = (api: ApiModel, canonical: string): string[] => api.namesOf('history-transaksi', canonical);

/** HIS-2 with small limits. */
function limitScenarios(method: Method): Scenario[] {
  const out: Scenario[] = [];
  for (const limit of [1, 2]) {
    out.push({
      title: `HIS-2 history-transaksi ${method}: limit=${limit} returns at most ${limit}`,
      clauses: ['HIS-2'],
      area: 'history',
      endpoint: 'history-transaksi',
      methods: [method],
      aliases: [],
      requests: 1,
      async run(ctx) {
        const ex = await ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, limit });
        return [judge('HIS-2', { exchange: ex })];
      },
    });
  }
  return out;
}

/** HIS-3 and HIS-5 for each filter alone and together, by every name. */
function filterScenarios(api: ApiModel, method: Method): Scenario[] {
  const out: Scenario[] = [];
  for (const set of FILTER_SETS) {
    const variants =
      set.length === 1 ? namesOf(api, set[0] ?? '').map((n) => [n]) : [set, set.map((n) => namesOf(api, n)[1] ?? n)];
    for (const sent of variants) {
      const aliases = sent.filter((n) => !set.includes(n));
      const his5 = his5Judges(set);
      out.push({
        title: `HIS-3${his5 ? ' HIS-5' : ''} history-transaksi ${method}${aliases.length ? ` via ${aliases.join(',')}` : ''}: filter ${sent.join(' + ')}`,
        clauses: his5 ? ['HIS-3', 'HIS-5'] : ['HIS-3'],
        area: 'history',
        endpoint: 'history-transaksi',
        methods: [method],
        aliases,
        needs: ['history'],
        requests: 2,
        async run(ctx) {
          const r = ctx.data.record ?? {};
          const p: Params = { api_key: ctx.target.apiKey, limit: 100 };
          set.forEach((canonical, i) => {
            p[sent[i] ?? canonical] = sample(ctx, 'history-transaksi', canonical);
          });
          const wide = await ctx.send('history-transaksi', method, p);
          // HIS-5 narrows with q=<trx_id> so that the answer is complete.
          const narrow = await ctx.send('history-transaksi', method, { ...p, q: r.trx_id, limit: compareLimit(ctx) });
          return [
            judge('HIS-3', { exchange: wide }),
            judge('HIS-3', { exchange: narrow }),
            ...(his5 ? [judge('HIS-5', { exchange: narrow, expectedRecord: r })] : []),
          ];
        },
      });
    }
  }
  return out;
}

/** Dates HIS-3 asks for at the edges of the account's records, at most this many a method. */
export const RECORD_DATE_EDGES = 40;

/**
 * The dates at which a date filter that slips shows a record of another day, from the account's own record dates,
 * most telling first, at most `cap`: the day before and after each record date where that crosses into another
 * month (a filter that reads the 1st as "from the day before" or the month's last day as "to the next"), the first
 * and last day of each month with records (a filter that reads an edge as its month), then the day before and after
 * every other record date. Newest first within each; no date the calendar does not have.
 */
export function recordDateEdges(dates: readonly string[], cap = RECORD_DATE_EDGES): string[] {
  const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
  const days = [...new Set(dates)].filter(isCalendarDate).sort().reverse();
  const shift = (d: string, n: number): string => dayOf(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000);
  const slips = days.flatMap((d) =>
    [shift(d, 1), shift(d, -1)].map((s) => ({ s, crosses: s.slice(0, 7) !== d.slice(0, 7) })),
  );
  const edges = [...new Set(days.map((d) => d.slice(0, 7)))].flatMap((m) => {
    const [y, mo] = m.split('-').map(Number) as [number, number];
    return [`${m}-01`, dayOf(Date.UTC(y, mo, 0))];
  });
  const crossing = slips.filter((x) => x.crosses).map((x) => x.s);
  return [...new Set([...crossing, ...edges, ...slips.map((x) => x.s)])].slice(0, cap);
}

/** HIS-3 at the edges of the account's record dates (`recordDateEdges`). */
function recordEdgeScenario(method: Method): Scenario {
  return {
    title: `HIS-3 history-transaksi ${method}: dates at the edges of the account's months and record days`,
    clauses: ['HIS-3'],
    area: 'history',
    endpoint: 'history-transaksi',
    methods: [method],
    aliases: [],
    needs: ['history'],
    requests: RECORD_DATE_EDGES,
    async run(ctx) {
      const dates = recordDateEdges((ctx.data.records ?? []).map((r) => r.date ?? ''));
      const answers = await Promise.all(
        dates.map((date) =>
          ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, date, limit: compareLimit(ctx) }),
        ),
      );
      return answers.map((exchange) => judge('HIS-3', { exchange }));
    },
  };
}

/** HIS-3 on a period before every record seen, by every name. */
function emptyPeriodScenarios(api: ApiModel, method: Method): Scenario[] {
  const out: Scenario[] = [];
  // A period before every record seen: a filter a provider ignores (under one name, or on one method) or reads
  // loosely then shows, since a record it returns is of another period (HIS-3), and GET and POST disagree (ENV-2).
  for (const set of EMPTY_SETS) {
    const variants =
      set.length === 1 ? namesOf(api, set[0] ?? '').map((n) => [n]) : [set, set.map((n) => namesOf(api, n)[1] ?? n)];
    for (const sent of variants) {
      const aliases = sent.filter((n) => !set.includes(n));
      out.push({
        title: `HIS-3 history-transaksi ${method}${aliases.length ? ` via ${aliases.join(',')}` : ''}: filter ${sent.join(' + ')} before every record seen`,
        clauses: ['HIS-3'],
        area: 'history',
        endpoint: 'history-transaksi',
        methods: [method],
        aliases,
        requests: 1,
        async run(ctx) {
          const ex = await ctx.send('history-transaksi', method, emptyPeriod(ctx, set, sent));
          return [judge('HIS-3', { exchange: ex })];
        },
      });
    }
  }
  return out;
}

/** HIS-4 and HIS-5 for q by every name, on a record's ID and numbers. */
function qScenarios(api: ApiModel, method: Method): Scenario[] {
  const out: Scenario[] = [];
  for (const qName of namesOf(api, 'q')) {
    for (const what of ['trx_id', 'member_number', 'manager_number'] as const) {
      out.push({
        title: `HIS-4 HIS-5 history-transaksi ${method}${qName === 'q' ? '' : ` via ${qName}`}: ${qName}=<${what}>`,
        clauses: ['HIS-4', 'HIS-5'],
        area: 'history',
        endpoint: 'history-transaksi',
        methods: [method],
        aliases: qName === 'q' ? [] : [qName],
        needs: ['history'],
        requests: 1,
        async run(ctx) {
          const r = ctx.data.record ?? {};
          const ex = await ctx.send('history-transaksi', method, {
            api_key: ctx.target.apiKey,
            [qName]: r[what],
            // Narrowed by the record's date, so that the answer can be complete and holds the record (HIS-4 judges
            // q=<trx_id> on an answer that shows it) on any record order or maximum page.
            date: r.date,
            limit: compareLimit(ctx),
          });
          return [judge('HIS-4', { exchange: ex }), judge('HIS-5', { exchange: ex, expectedRecord: r })];
        },
      });
    }
  }
  return out;
}

/** ENV-2 on a period before every record seen: GET and POST give the same (empty) answer. */
function emptyPeriodPair(set: string[]): Scenario {
  return {
    title: `ENV-2 history-transaksi GET+POST: filter ${set.join(' + ')} before every record seen`,
    clauses: ['ENV-2'],
    area: 'history',
    endpoint: 'history-transaksi',
    methods: ['GET', 'POST'],
    aliases: [],
    requests: 2,
    async run(ctx) {
      const p = emptyPeriod(ctx, set, set);
      const pair = [
        await ctx.send('history-transaksi', 'GET', p),
        await ctx.send('history-transaksi', 'POST', p),
      ] as const;
      return [judge('ENV-2', { pair })];
    },
  };
}

/** Filter sets tried on a period with no records: a date, a year, a month with its year. */
const EMPTY_SETS: string[][] = [['date'], ['year'], ['month', 'year']];

/**
 * A history request filtered to a period before every record discovery saw, next to them: the year before the
 * oldest one (or 2001), its December, its last day. The account may hold records there (discovery sees a page),
 * but none of the periods seen: a filter a provider reads loosely (a year give or take one, a day that spills into
 * the next) or not at all then returns records of another period. `sent` names each filter of `set` as it goes out.
 */
function emptyPeriod(ctx: ScenarioContext, set: string[], sent: string[]): Params {
  const years = (ctx.data.records ?? []).map((r) => Number(r.date?.slice(0, 4))).filter((y) => y > 1900);
  const year = String(years.length ? Math.min(...years) - 1 : 2001);
  const value: Record<string, string> = { date: `${year}-12-31`, month: '12', year };
  const p: Params = { api_key: ctx.target.apiKey, limit: compareLimit(ctx) };
  set.forEach((canonical, i) => {
    p[sent[i] ?? canonical] = value[canonical];
  });
  return p;
}

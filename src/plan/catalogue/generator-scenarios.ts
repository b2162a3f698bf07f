import { historyComplete } from '../../checks/outcome.js';
import { dateOf, recordOf, records } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import {
  type ClauseId,
  ENDPOINTS_WITH_PARAMS,
  type Endpoint,
  type Exchange,
  METHODS,
  type Method,
} from '../../openapi/types.js';
import { coverageByNames, GENERATED_ENDPOINTS, type GeneratedCase, nearMissCases } from '../generators/cases.js';
import { batches } from '../generators/generated-case.js';
import { pairCases } from '../generators/pairs.js';
import {
  checkProperty,
  historyArbitrary,
  historyCase,
  randomArbitrary,
  randomCase,
  sendCase,
} from '../generators/properties.js';
import { compareLimit, inviteParams } from '../sampling.js';
import {
  chargedSaldo,
  type Judgement,
  judge,
  othersBetween,
  othersOn,
  ownIds,
  PreconditionFailed,
  type Scenario,
  type ScenarioContext,
  steadySaldo,
} from '../scenario.js';
import { AREA_OF, settledStates } from './common.js';

/** What a coverage scenario of a parameter can find, besides ENV-1 and ENV-4 on every answer. */
const DEMANDS: Record<string, ClauseId[]> = {
  'invite-member msisdn': ['INV-3', 'INV-4'],
  'invite-member kind': ['INV-4'],
  'invite-member trx_id': ['INV-4'],
  'invite-member product_code': ['INV-4'],
};

/**
 * Reads go eight at a time. Invites go four at a time, each batch admitted by the ledger only if the cap would
 * hold even were all four wrongly accepted, and no batch goes out once one of its class was seen accepted.
 */
async function sendAll(ctx: ScenarioContext, cases: readonly GeneratedCase[]): Promise<Map<GeneratedCase, Exchange>> {
  const got = new Map<GeneratedCase, Exchange>();
  const invites = cases[0]?.endpoint === 'invite-member';
  for (const batch of batches(cases, invites ? 4 : 8)) {
    const answers = invites
      ? await ctx.inviteBatch(
          batch.map((c) => ({
            method: c.method,
            params: c.params,
            intent: c.intent ?? { expect: 'refusal', clause: 'used-trx' },
          })),
        )
      : await Promise.all(batch.map((c) => sendCase(ctx, c)));
    batch.forEach((c, j) => {
      const ex = answers[j];
      if (!ex) return;
      ctx.generated(c, ex);
      got.set(c, ex);
    });
  }
  return got;
}

/**
 * The cases whose transaction ID the role says names no record, checked against the account's own history: a
 * variant of an existing ID may exist too (IDs numbered in sequence: `12` beside `123`). Each is searched for
 * (q=<ID>); one that history shows, or whose search is not complete, is judged by its answer alone, not by TRX-2.
 */
async function unknownForSure(
  api: ApiModel,
  ctx: ScenarioContext,
  cases: readonly GeneratedCase[],
): Promise<GeneratedCase[]> {
  const idOf = (c: GeneratedCase): string => String(api.foldRequest('cek-trx-id', c.params).params.trx_id);
  const ids = [...new Set(cases.filter((c) => c.unknownId).map(idOf))];
  const maybe = new Set<string>();
  await Promise.all(
    ids.map(async (id) => {
      const ex = await ctx.send('history-transaksi', 'GET', {
        api_key: ctx.target.apiKey,
        q: id,
        limit: compareLimit(ctx),
      });
      if (historyComplete(api, ex) !== true || recordOf(ex, id) !== undefined) maybe.add(id);
    }),
  );
  return cases.map((c) => {
    if (!c.unknownId || !maybe.has(idOf(c))) return c;
    const { unknownId: _, ...rest } = c;
    return rest;
  });
}

/**
 * ENV-2 and ENV-3 on the coverage phase's answers: every value class by the canonical name on GET is the
 * reference; the same class by POST must give its outcome (ENV-2), and under every alias by the same method
 * (ENV-3). Only text values pair (a POST carries a number as a JSON number, a GET as text), and only answers
 * the clauses left to the provider: one that a clause said must be refused and was accepted is that clause's
 * finding, and an answer without the envelope is ENV-1's.
 */
async function coveragePairs(ctx: ScenarioContext, got: ReadonlyMap<GeneratedCase, Exchange>): Promise<Judgement[]> {
  const out: Judgement[] = [];
  const own = (c: GeneratedCase, ex: Exchange): boolean => {
    const ok = (ex.body as { ok?: unknown } | undefined)?.ok;
    return typeof ok === 'boolean' && !(ok === true && (c.refuse !== undefined || c.unknownId === true));
  };
  const byClass = new Map<string, [GeneratedCase, Exchange][]>();
  for (const [c, ex] of got) {
    const v = c.coverage;
    if (!v || typeof c.params[v.sentAs] !== 'string' || !own(c, ex)) continue;
    byClass.set(v.valueClass, [...(byClass.get(v.valueClass) ?? []), [c, ex]]);
  }
  for (const answers of byClass.values()) {
    const canonical = answers.filter(([c]) => c.coverage?.sentAs === c.coverage?.param);
    for (const [c, ex] of answers) {
      const sameName = c.coverage?.sentAs === c.coverage?.param;
      const ref = canonical.find(([r]) => (sameName ? r.method === 'GET' : r.method === c.method));
      if (!ref || ref[0] === c) continue;
      out.push(judge(sameName ? 'ENV-2' : 'ENV-3', { pair: await settledStates(ctx, [ref[1], ex]) }));
    }
  }
  return out;
}

/**
 * The generated scenarios: the coverage phase (every parameter's boundary values, by every name, on both
 * methods), AUTH-1 near misses of the key, history properties, the random phase (fast-check, seeded,
 * shrinking) and, with writes, the same invite sent several times at once (INV-5 in flight).
 */
export function generatedScenarios(api: ApiModel): Scenario[] {
  const out: Scenario[] = [
    ...ENDPOINTS_WITH_PARAMS.flatMap((endpoint) =>
      api
        .operation(endpoint)
        .params.filter((p) => p.name !== 'api_key')
        .map((p) => coverage(api, endpoint, p.name)),
    ),
    ...ENDPOINTS_WITH_PARAMS.map((endpoint) => pairs(api, endpoint)),
    ...GENERATED_ENDPOINTS.flatMap((endpoint) => METHODS.map((method) => nearMisses(endpoint, method))),
    historyProperties(api),
    ...GENERATED_ENDPOINTS.map((endpoint) => randomPhase(api, endpoint)),
    ...METHODS.map((method) => inFlight(method)),
  ];
  return out.map((s) => ({ ...s, generated: true }));
}

/** Whether the generated scenarios of an endpoint need a known transaction ID. */
const needsKnownTrx = (endpoint: Endpoint): boolean => endpoint === 'cek-trx-id' || endpoint === 'invite-member';

/** What a generated scenario of an endpoint needs, and the invites it sends (none but guarded ones). */
function generatedUse(endpoint: Endpoint): Pick<Scenario, 'needs' | 'invite'> {
  return {
    needs: needsKnownTrx(endpoint) ? ['known-trx'] : [],
    ...(endpoint === 'invite-member' ? { invite: { writes: 0, risk: 1, priority: 0, safe: true } } : {}),
  };
}

/**
 * The coverage phase of one parameter: its boundary values by every name and both methods, the canonical name on
 * both, each alias on one in turn (coverageByNames; ENV-2, ENV-3).
 */
function coverage(api: ApiModel, endpoint: Endpoint, param: string): Scenario {
  const clauses: ClauseId[] = ['ENV-2', 'ENV-3', ...(DEMANDS[`${endpoint} ${param}`] ?? []), 'ENV-4'];
  const names = api.namesOf(endpoint, param);
  return {
    title: `${clauses.join(' ')} ${endpoint} GET+POST: coverage of ${param}${names.length > 1 ? ` by ${names.join(', ')}` : ''}`,
    clauses,
    area: AREA_OF[endpoint],
    endpoint,
    methods: ['GET', 'POST'],
    aliases: names.slice(1),
    plainOpenApi: false,
    // An invite that no clause says must be refused goes out guarded by a used trx_id.
    needs: needsKnownTrx(endpoint) ? ['known-trx'] : ['q', 'date', 'month', 'year'].includes(param) ? ['history'] : [],
    ...(endpoint === 'invite-member' ? { invite: { writes: 0, risk: 1, priority: 0, safe: true } } : {}),
    requests: 112 * (names.length + 1),
    async run(ctx) {
      const cases = coverageByNames(api, ctx, endpoint, param, names);
      return coveragePairs(ctx, await sendAll(ctx, await unknownForSure(api, ctx, cases)));
    },
  };
}

/** The covering array of an endpoint (generators/pairs.ts): every pair of conditions its requests can carry. */
function pairs(api: ApiModel, endpoint: Endpoint): Scenario {
  const own: ClauseId[] =
    endpoint === 'invite-member' ? ['INV-3', 'INV-4'] : endpoint === 'cek-trx-id' ? ['TRX-2'] : [];
  const clauses: ClauseId[] = [...own, 'ENV-4'];
  return {
    title: `${clauses.join(' ')} ${endpoint} GET+POST: every pair of conditions (a covering array)`,
    clauses,
    area: AREA_OF[endpoint],
    endpoint,
    methods: ['GET', 'POST'],
    aliases: api.operation(endpoint).params.flatMap((p) => api.namesOf(endpoint, p.name).slice(1)),
    plainOpenApi: false,
    needs: needsKnownTrx(endpoint) ? ['known-trx'] : ['history'],
    ...(endpoint === 'invite-member' ? { invite: { writes: 0, risk: 1, priority: 0, safe: true } } : {}),
    requests: 150,
    async run(ctx) {
      await sendAll(ctx, await unknownForSure(api, ctx, pairCases(api, ctx, endpoint)));
      return [];
    },
  };
}

/** AUTH-1 by one method: near misses of the key are refused without account data. */
function nearMisses(endpoint: Endpoint, method: Method): Scenario {
  return {
    title: `AUTH-1 ${endpoint} ${method}: near misses of the key are refused without account data`,
    clauses: ['AUTH-1'],
    area: endpoint === 'invite-member' ? 'invite' : 'auth',
    endpoint,
    methods: [method],
    aliases: ['key'],
    plainOpenApi: false,
    ...generatedUse(endpoint),
    requests: 15,
    async run(ctx) {
      await sendAll(ctx, nearMissCases(ctx, endpoint, method));
      return [];
    },
  };
}

/** HIS-2..5 as properties of random filters over the account's records, and the limits around a narrowed query. */
function historyProperties(api: ApiModel): Scenario {
  return {
    title:
      "HIS-3 HIS-4 HIS-5 HIS-2 history-transaksi GET+POST: properties of random filters over the account's records",
    clauses: ['HIS-3', 'HIS-4', 'HIS-5', 'HIS-2'],
    area: 'history',
    endpoint: 'history-transaksi',
    methods: ['GET', 'POST'],
    aliases: [],
    plainOpenApi: false,
    needs: ['history'],
    requests: 60,
    async run(ctx) {
      const records = ctx.data.records ?? [];
      await checkProperty(
        api,
        ctx,
        historyArbitrary(api, records),
        (t) => historyCase(ctx, records, t),
        ctx.generation.examples,
      );
      await limitsAround(ctx);
      return [];
    },
  };
}

/** The random phase of one endpoint (fast-check, seeded, shrinking), on both methods. */
function randomPhase(api: ApiModel, endpoint: Endpoint): Scenario {
  return {
    title: `ENV-4 ${endpoint} GET+POST: random phase`,
    clauses: ['ENV-4', ...(endpoint === 'invite-member' ? (['INV-3', 'INV-4'] as const) : [])],
    area: AREA_OF[endpoint],
    endpoint,
    methods: ['GET', 'POST'],
    aliases: [],
    plainOpenApi: false,
    ...generatedUse(endpoint),
    requests: 60,
    async run(ctx) {
      await checkProperty(
        api,
        ctx,
        randomArbitrary(api, ctx, endpoint),
        (t) => randomCase(ctx, endpoint, t),
        ctx.generation.examples,
      );
      return [];
    },
  };
}

/**
 * A count at the edges of what it counts: limit 0, 1, N-1, N and N+1 on a narrowed query of N records (the date
 * of one of the account's records), by both methods. Every answer that holds fewer records than its limit says
 * it is complete, so it must hold all N (HIS-5); none may hold more than its limit (HIS-2).
 */
async function limitsAround(ctx: ScenarioContext): Promise<void> {
  const r = ctx.data.record;
  if (!r) return;
  const base = { api_key: ctx.target.apiKey, date: r.date };
  const all = await ctx.send('history-transaksi', 'POST', { ...base, limit: compareLimit(ctx) });
  const data = (all.body as { ok?: unknown; data?: unknown } | undefined)?.data;
  const n = Array.isArray(data) ? data.length : 0;
  if (n === 0 || n >= compareLimit(ctx)) return;
  const expectedRecords = (records(all) ?? []).map((x) => ({ trx_id: String(x.trx_id) }));
  for (const method of METHODS)
    for (const limit of [...new Set([0, 1, n - 1, n, n + 1])].filter((l) => l >= 0)) {
      const c: GeneratedCase = {
        phase: 'history',
        endpoint: 'history-transaksi',
        method,
        params: { ...base, limit },
        label: `a narrowed query of ${n} record(s) with limit=${limit}`,
        // limit=0 asks for none: a provider may refuse it (a refusal would read as hiding them all).
        ...(limit > 0 ? { expectedRecords } : {}),
      };
      ctx.generated(c, await sendCase(ctx, c));
    }
}

/**
 * INV-5 in flight: one invite to learn the price of one, then a new invite sent K times at once (K from 2 to
 * 4, from the seed), as a client's retry after a timeout would: at most one may succeed, the balance move by at
 * most one price, and at most one history record carry its trx_id.
 */
function inFlight(method: Method): Scenario {
  return {
    title: `INV-5 invite-member ${method}: the same invite sent several times at once creates one transaction`,
    clauses: ['INV-5'],
    area: 'invite',
    endpoint: 'invite-member',
    methods: [method],
    aliases: [],
    invite: { writes: 2, risk: 3, priority: 4, safe: false },
    requests: 10,
    settles: true,
    replay: 'rerun',
    async run(ctx) {
      const key = { api_key: ctx.target.apiKey };
      const k = 2 + (ctx.generation.seed % 3);
      const saldo0 = await steadySaldo(ctx, method);
      const single = await ctx.invite(method, inviteParams(ctx), { expect: 'success', clause: 'INV-5' });
      if ((single.body as { ok?: unknown }).ok !== true)
        throw new PreconditionFailed('the invite that measures the price of one was refused');
      const params = inviteParams(ctx);
      const shows = (trx: unknown) => (ex: Exchange) => recordOf(ex, trx) !== undefined;
      const historyOf = (trx: unknown) => () =>
        ctx.send('history-transaksi', method, { ...key, q: trx, limit: compareLimit(ctx) });
      // The provider's date of the single invite, and what else the account shows that day before the balance
      // is read: another client's work would move the balance too.
      const shown = await ctx.settle(historyOf(single.params.trx_id), shows(single.params.trx_id));
      const date = dateOf(shown, single.params.trx_id);
      const own = (): Set<string> => ownIds(ctx, single.params.trx_id, params.trx_id);
      const othersBefore = date ? await othersOn(ctx, method, date, own()) : undefined;
      // A provider may charge when it completes the invite: look again until the balance has moved.
      const saldo1 = await chargedSaldo(ctx, method, saldo0);
      const price =
        Number((saldo0.body as { saldo?: unknown }).saldo) - Number((saldo1.body as { saldo?: unknown }).saldo);
      if (!(price > 0)) throw new PreconditionFailed('the invite that measures the price of one charged nothing');
      const answers = await ctx.inviteAll(
        Array.from({ length: k }, () => ({ method, params })),
        'INV-5',
      );
      const saldo2 = await steadySaldo(ctx, method);
      const ok = (e: Exchange): boolean => (e.body as { ok?: unknown } | undefined)?.ok === true;
      const [invite, ...repeats] = [...answers.filter(ok), ...answers.filter((e) => !ok(e))];
      if (!invite || !ok(invite)) throw new PreconditionFailed('none of the invites sent at once was carried out');
      // Wait until the invite shows, so that a second record of its trx_id would show too.
      const hist = await ctx.settle(historyOf(params.trx_id), shows(params.trx_id));
      const othersActive =
        !date || !othersBefore || othersBetween(othersBefore, await othersOn(ctx, method, date, own()));
      return [
        judge('INV-5', {
          invite,
          repeats,
          saldoBefore: saldo1,
          saldoAfter: saldo2,
          unitPrice: price,
          history: hist,
          othersActive,
        }),
      ];
    },
  };
}

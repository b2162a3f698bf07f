import { answerJudges, judgeClauses } from '../../checks/judge.js';
import { bodyOf } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import { forms } from '../../openapi/numbers.js';
import {
  type ClauseId,
  ENDPOINTS_READS_FIRST,
  type Endpoint,
  type Exchange,
  METHODS,
  type Method,
  type Params,
} from '../../openapi/types.js';
import type { HistoryRecord } from '../../target/target.js';
import { showExchange } from '../observations.js';
import { baseParams, compareLimit, READ_ONLY_PRODUCT, testNumber, WRONG_KEY } from '../sampling.js';
import { type Judgement, judge, type Scenario, type ScenarioContext } from '../scenario.js';
import { AREA_OF, ordinaryIntent, sendAs } from './common.js';

/** A search no record holds. */
const NO_SUCH = 'H2H-CONTRACT-NO-SUCH-RECORD';

/** The first record's value of a field and another record's different one (or `fallback` when none differs). */
function twoOf(
  records: readonly HistoryRecord[],
  pick: (r: HistoryRecord) => string | undefined,
  fallback: string,
): [string, string] {
  const values = [...new Set(records.map(pick).filter((v): v is string => !!v))];
  return [values[0] ?? fallback, values[1] ?? fallback];
}

/**
 * Two different values of a parameter whose answers tell which one a target used, from the account's records
 * and the run's config; undefined when the data gives none (no history for a filter, say).
 */
function twoValues(ctx: ScenarioContext, endpoint: Endpoint, param: string): [unknown, unknown] | undefined {
  const records = ctx.data.records ?? [];
  switch (`${endpoint} ${param}`) {
    case 'history-transaksi q':
      return records.length ? twoOf(records, (r) => r.trx_id, NO_SUCH) : undefined;
    case 'history-transaksi date':
      return records.length ? twoOf(records, (r) => r.date, '1999-01-01') : undefined;
    case 'history-transaksi month': {
      if (!records.length) return undefined;
      const [a, b] = twoOf(records, (r) => r.date?.slice(5, 7), '');
      return [a, b || (a === '01' ? '02' : '01')];
    }
    case 'history-transaksi year':
      return records.length ? twoOf(records, (r) => r.date?.slice(0, 4), '1999') : undefined;
    case 'cek-trx-id trx_id': {
      // Two transactions that exist, when the account has them: a refusal then is a refusal of the pair.
      const other = records.map((r) => r.trx_id).find((id) => id !== ctx.data.knownTrxId);
      return ctx.data.knownTrxId ? [ctx.data.knownTrxId, other ?? ctx.newTrxId()] : undefined;
    }
    case 'invite-member trx_id':
      return [ctx.newTrxId(), ctx.newTrxId()];
    case 'invite-member msisdn':
      return [testNumber(ctx, 0), forms(testNumber(ctx, 1)).f62];
    case 'invite-member product_code':
      return [ctx.target.product, READ_ONLY_PRODUCT];
    case 'invite-member name':
      return ['H2H canonical', 'H2H alias'];
    case 'invite-member kind':
      return [ctx.target.kind ?? 'akrab', ctx.target.kind === 'circle' ? 'akrab' : 'circle'];
    default:
      return undefined;
  }
}

/** The records of the account a reading's filter must not hide (HIS-5), for a request of history. */
function expected(ctx: ScenarioContext, api: ApiModel, params: Params): HistoryRecord[] {
  const p = api.foldRequest('history-transaksi', params).params;
  const records = ctx.data.records ?? [];
  if (p.q !== undefined) return records.filter((r) => r.trx_id === p.q);
  if (p.date !== undefined) return records.filter((r) => r.date === p.date).slice(0, 1);
  return [];
}

/** Transaction IDs known to exist: the configured one, the account's records, the run's own invites. */
function knownIds(ctx: ScenarioContext): Set<unknown> {
  return new Set([
    ctx.data.knownTrxId,
    ...(ctx.data.records ?? []).map((r) => r.trx_id),
    ...ctx.ownInvites().map((i) => i.trxId),
  ]);
}

/**
 * The judgements of an answer read as the answer to `params` (one name per parameter): a wrong key's answer by
 * AUTH-1, a lookup of an ID made fresh by TRX-2, any other by every clause one answer can break, and on history
 * HIS-5 for a record its filter matches.
 */
function readingsOf(api: ApiModel, ctx: ScenarioContext, ex: Exchange, params: Params): Judgement[] {
  const as: Exchange = { ...ex, params };
  const p = api.foldRequest(ex.endpoint, params).params;
  if (p.api_key !== ctx.target.apiKey) return [judge('AUTH-1', { exchange: as })];
  if (ex.endpoint === 'cek-trx-id' && !knownIds(ctx).has(p.trx_id)) return [judge('TRX-2', { exchange: as })];
  const out = answerJudges(api, as).map((c) => judge(c, { exchange: as }));
  if (ex.endpoint === 'history-transaksi' && bodyOf(ex)?.ok === true)
    for (const r of expected(ctx, api, params)) out.push(judge('HIS-5', { exchange: as, expectedRecord: r }));
  return out;
}

const broken = (api: ApiModel, js: Judgement[]): number =>
  js.reduce((n, j) => n + judgeClauses(api, [j.clause], j.evidence).length, 0);

/**
 * A refusal (nothing more to judge: a refusal of the pair is legal), or an answer without the envelope's boolean
 * `ok`, which cannot tell a refusal from an acceptance: ENV-1, judged on every answer, is the one clause it breaks.
 */
function refusedOrUnreadable(ex: Exchange): { value: string; judgements: Judgement[] } | undefined {
  const ok = bodyOf(ex)?.ok;
  if (ok === false) return { value: 'refused', judgements: [] };
  if (typeof ok !== 'boolean') return { value: 'not an envelope (ENV-1)', judgements: [] };
  return undefined;
}

/**
 * What a target did with two names of one parameter, and the judgements of its answer: refused; or the answer
 * fits the canonical name's value, or the alias's, and is judged as the answer to that one; `unclear` when it
 * fits both (it is judged as the canonical's); where it fits neither, as the one it breaks least.
 */
function decide(
  api: ApiModel,
  ctx: ScenarioContext,
  ex: Exchange,
  asCanonical: Params,
  asAlias: Params,
): { value: string; judgements: Judgement[] } {
  const early = refusedOrUnreadable(ex);
  if (early) return early;
  const a = readingsOf(api, ctx, ex, asCanonical);
  const b = readingsOf(api, ctx, ex, asAlias);
  const [na, nb] = [broken(api, a), broken(api, b)];
  if (na === 0 && nb > 0) return { value: 'canonical', judgements: a };
  if (nb === 0 && na > 0) return { value: 'alias', judgements: b };
  if (na === 0) return { value: 'unclear', judgements: a };
  return nb < na ? { value: 'alias', judgements: b } : { value: 'canonical', judgements: a };
}

/**
 * The real key under one name and a wrong one under the other: refused, or accepted (then the name that carries
 * the real key won, `real`), its answer judged as the answer to the real key (AUTH-1 is not violated when one name
 * carries it: contract-clauses.md).
 */
function decideKey(
  api: ApiModel,
  ctx: ScenarioContext,
  ex: Exchange,
  withRealKey: Params,
  real: 'canonical' | 'alias',
): { value: string; judgements: Judgement[] } {
  return refusedOrUnreadable(ex) ?? { value: real, judgements: readingsOf(api, ctx, ex, withRealKey) };
}

/** One pair of names of a parameter on one endpoint and method: the request carries both, with different values. */
function conflictScenario(api: ApiModel, endpoint: Endpoint, param: string, alias: string, method: Method): Scenario {
  const invite = endpoint === 'invite-member';
  const clauses: ClauseId[] =
    param === 'api_key'
      ? ['AUTH-1']
      : invite
        ? ['INV-1', 'INV-2']
        : endpoint === 'history-transaksi'
          ? param === 'q'
            ? ['HIS-4', 'HIS-5']
            : ['HIS-3']
          : ['TRX-1'];
  return {
    title: `${clauses.join(' ')} ${endpoint} ${method} via ${alias}: ${param} and ${alias} with different values (what the target does is observed)`,
    clauses,
    area: AREA_OF[endpoint],
    endpoint,
    methods: [method],
    aliases: [alias],
    plainOpenApi: false,
    needs: endpoint === 'cek-trx-id' ? ['known-trx'] : endpoint === 'history-transaksi' ? ['history'] : [],
    // An invite with two values of one parameter may be carried out with either: it needs writes, and goes last.
    ...(invite ? { invite: { writes: param === 'api_key' ? 2 : 1, risk: 0, priority: 9, safe: false } } : {}),
    requests: param === 'api_key' ? 2 : 1,
    async run(ctx) {
      const subject = `${param}+${alias}`;
      // The endpoint's ordinary request (a fresh trx_id each time for an invite), without the parameter; history
      // without its narrowing filter, so that what narrows is the pair alone.
      const base = (): Params => {
        const p = endpoint === 'history-transaksi' ? { api_key: ctx.target.apiKey } : baseParams(ctx, endpoint);
        delete p[param];
        return endpoint === 'history-transaksi' ? { ...p, limit: compareLimit(ctx) } : p;
      };
      const sent = (b: Params, canonical: unknown, other: unknown): Params => ({
        ...b,
        [param]: canonical,
        [alias]: other,
      });
      const one = (b: Params, v: unknown): Params => ({ ...b, [param]: v });
      // An invite of two values may be carried out with either: it is an ordinary invite, counted when sent.
      const intent = ordinaryIntent(ctx, 'ENV-3');
      if (param === 'api_key') {
        // Both orders: the real key under one name, a wrong one under the other. The caller holds the key, so
        // neither order is an AUTH-1 case whatever the target does; what it does is the observation.
        const key = ctx.target.apiKey;
        const [b1, b2] = [base(), base()];
        const keyFirst = await sendAs(ctx, endpoint, method, sent(b1, key, WRONG_KEY), intent);
        const keySecond = await sendAs(ctx, endpoint, method, sent(b2, WRONG_KEY, key), intent);
        // The caller holds the key: an accepted answer is judged as the answer to the real key, never by AUTH-1.
        const x = decideKey(api, ctx, keyFirst, one(b1, key), 'canonical');
        const y = decideKey(api, ctx, keySecond, one(b2, key), 'alias');
        const value =
          x.value === 'refused'
            ? y.value
            : y.value === 'refused'
              ? x.value
              : 'either (the name with the real key wins)';
        ctx.observe({ point: 'conflict', endpoint, method, subject, value, evidence: showExchange(keyFirst) });
        return [...x.judgements, ...y.judgements];
      }
      const values = twoValues(ctx, endpoint, param);
      if (!values) return [];
      const [a, b] = values;
      const b1 = base();
      const ex = await sendAs(ctx, endpoint, method, sent(b1, a, b), intent);
      const { value, judgements } = decide(api, ctx, ex, one(b1, a), one(b1, b));
      ctx.observe({ point: 'conflict', endpoint, method, subject, value, evidence: showExchange(ex) });
      return judgements;
    },
  };
}

/**
 * Two names of one parameter with different values in one request, for every parameter with aliases, every alias
 * and both methods: the provider may refuse, use the canonical name or use the alias (contract-clauses.md, "What
 * is never a violation"). Each scenario observes which, and judges the answer as the answer to the value used.
 */
export function conflictScenarios(api: ApiModel): Scenario[] {
  const out: Scenario[] = [];
  for (const endpoint of ENDPOINTS_READS_FIRST)
    for (const p of api.operation(endpoint).params)
      for (const alias of p.aliases)
        for (const method of METHODS) out.push(conflictScenario(api, endpoint, p.name, alias, method));
  return out;
}

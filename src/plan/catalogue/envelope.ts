import type { ApiModel } from '../../openapi/load.js';
import {
  type Endpoint,
  type Exchange,
  METHODS,
  type Method,
  type ParamInfo,
  type Params,
} from '../../openapi/types.js';
import { NotSent } from '../../target/invite-ledger.js';
import { settledDate } from '../../target/target.js';
import { baseParams, compareLimit, sample, WRONG_KEY } from '../sampling.js';
import {
  type Area,
  type Judgement,
  judge,
  type Need,
  NotJudged,
  PreconditionFailed,
  rename,
  type Scenario,
  type ScenarioContext,
} from '../scenario.js';
import { comparablePair, ordinaryIntent, sendAs, settledStates } from './common.js';

const WRONG_KEY_INTENT = { expect: 'refusal', clause: 'AUTH-1' } as const;
const HISTORY_DATA = ['q', 'date', 'month', 'year'];

/**
 * For ENV-3 on a history filter (date, month, year): a query of that filter's period alone, so that an alias the
 * provider ignores gives another answer: a date, a month with its year, or a year of the account's records. Only
 * for a period that ended before the newest date discovery saw (records of a later period may still be written
 * during the run, the run's own invites among them); else undefined, and the scenario narrows as the others do.
 */
function periodOnly(ctx: ScenarioContext, name: string): Params | undefined {
  if (!['date', 'month', 'year'].includes(name)) return undefined;
  const base = { api_key: ctx.target.apiKey, limit: compareLimit(ctx) };
  const dates = [ctx.data.record?.date, ...(ctx.data.records ?? []).map((r) => r.date)].filter(
    (d): d is string => typeof d === 'string',
  );
  // A period stands still once a later one has begun: its first day after is before the newest date seen.
  if (name === 'date') {
    const d = dates.find((x) => settledDate(ctx.data, x));
    return d ? { ...base, date: d } : undefined;
  }
  const m = dates.find((x) => settledDate(ctx.data, `${x.slice(0, 7)}-32`));
  if (name === 'month') return m ? { ...base, month: m.slice(5, 7), year: m.slice(0, 4) } : undefined;
  const y = dates.find((x) => settledDate(ctx.data, `${x.slice(0, 4)}-13`));
  return y ? { ...base, year: y.slice(0, 4) } : undefined;
}

/**
 * Two invites of a pair, one carried out and one refused: was it the pair's difference, or the account's state (a
 * group gone full, a balance gone)? Decided without trusting status words: the carried-out request goes out once
 * more (a fresh trx_id). Refused now too, the state changed between the two and the pair cannot be compared
 * (inconclusive); carried out again, the refusal was the pair's (ENV-2, ENV-3 judge it). Past the invite cap, the
 * pair is judged as it is.
 */
async function stateControl(
  ctx: ScenarioContext,
  api: ApiModel,
  pair: readonly [Exchange, Exchange],
  resend: (params: Params, method: Method) => Promise<Exchange>,
): Promise<void> {
  const ok = pair.map((ex) => (ex.body as { ok?: unknown } | undefined)?.ok === true);
  if (pair[0].endpoint !== 'invite-member' || ctx.form !== 'write' || ok[0] === ok[1]) return;
  const done = ok[0] ? pair[0] : pair[1];
  const trxName = api.namesOf('invite-member', 'trx_id').find((n) => done.params[n] !== undefined) ?? 'trx_id';
  let again: Exchange;
  try {
    again = await resend({ ...done.params, [trxName]: ctx.newTrxId() }, done.method);
  } catch (err) {
    if (err instanceof NotSent) return;
    throw err;
  }
  if ((again.body as { ok?: unknown } | undefined)?.ok !== true)
    throw new PreconditionFailed(
      "an invite like the one carried out was refused a moment later: the account's state changed between the two invites (a full group, say), so they cannot be compared",
    );
}

/** What every envelope scenario of one endpoint shares: where it runs and what it needs. */
interface EnvelopeOf {
  api: ApiModel;
  endpoint: Endpoint;
  area: Area;
  invite: boolean;
  needs: Need[];
}

/**
 * ENV-1..4 on one endpoint: the envelope of an ordinary and a refused call, each alias beside its canonical
 * name (ENV-3), and GET beside POST (ENV-2). On invite-member they live in the invite area (its invites run in
 * order, in one worker) and use invites: in the `write` form fresh ones, in the `safe` form a used trx_id.
 */
export function envelopeScenarios(api: ApiModel, endpoint: Endpoint, area: Area = 'envelope'): Scenario[] {
  const of: EnvelopeOf = {
    api,
    endpoint,
    area,
    invite: endpoint === 'invite-member',
    needs: endpoint === 'cek-trx-id' ? ['known-trx'] : [],
  };
  const params = api.operation(endpoint).params;
  return [
    ...METHODS.flatMap((method) => [
      ordinaryAndRefused(of, method),
      ...params.flatMap((p) => p.aliases.map((alias) => aliasScenario(of, method, p, alias))),
    ]),
    getBesidePost(of),
  ];
}

/** ENV-1 and ENV-4 by one method: the envelope of an ordinary call and of one with a wrong key. */
function ordinaryAndRefused(of: EnvelopeOf, method: Method): Scenario {
  const { endpoint } = of;
  return {
    title: `ENV-1 ENV-4 ${endpoint} ${method}: envelope of an ordinary and a refused call`,
    clauses: ['ENV-1', 'ENV-4'],
    area: of.area,
    endpoint,
    methods: [method],
    aliases: [],
    needs: [...of.needs],
    ...(of.invite ? { invite: { writes: 1, risk: 1, priority: 6, safe: true } } : {}),
    requests: 2,
    async run(ctx) {
      const ok = await sendAs(ctx, endpoint, method, baseParams(ctx, endpoint), ordinaryIntent(ctx, 'ENV-4'));
      const bad = await sendAs(
        ctx,
        endpoint,
        method,
        { ...baseParams(ctx, endpoint), api_key: WRONG_KEY },
        WRONG_KEY_INTENT,
      );
      return [judge('ENV-1', { exchange: ok }), judge('ENV-4', { exchange: ok }), judge('ENV-1', { exchange: bad })];
    },
  };
}

/** ENV-3 by one method and one alias of a parameter: the alias gives the outcome of the canonical name. */
function aliasScenario(of: EnvelopeOf, method: Method, p: ParamInfo, alias: string): Scenario {
  return {
    title: `ENV-3 ${of.endpoint} ${method} via ${alias}: alias ${alias} gives the outcome of ${p.name}`,
    clauses: ['ENV-3'],
    area: of.area,
    endpoint: of.endpoint,
    methods: [method],
    aliases: [alias],
    needs: [...of.needs, ...(HISTORY_DATA.includes(p.name) && !of.invite ? (['history'] as const) : [])],
    ...(of.invite ? { invite: { writes: 2, risk: p.name === 'api_key' ? 2 : 0, priority: 8, safe: true } } : {}),
    requests: 12,
    run: (ctx) => runAlias(ctx, of, method, p.name, alias),
  };
}

/** The run of an ENV-3 scenario: the canonical name beside the alias, and for the key a wrong one under both. */
async function runAlias(
  ctx: ScenarioContext,
  { api, endpoint }: EnvelopeOf,
  method: Method,
  name: string,
  alias: string,
): Promise<Judgement[]> {
  const base = (): Params => {
    const pinned = endpoint === 'history-transaksi' ? periodOnly(ctx, name) : undefined;
    if (pinned) return pinned;
    const params = baseParams(ctx, endpoint);
    if (params[name] === undefined) params[name] = sample(ctx, endpoint, name);
    return params;
  };
  // Without a value (no --kind for kind's alias), both requests would be the same: nothing to compare.
  if (base()[name] === undefined)
    throw new NotJudged(`${name} has no value to send under ${alias}: pass --${name.replace(/_/g, '-')}`);
  // An invite carried out under any name never raises the balance (BAL-2): read before and after each.
  const balances: Judgement[] = [];
  const key = { api_key: ctx.target.apiKey };
  const send = async (params: Params): Promise<Exchange> => {
    const writes = endpoint === 'invite-member' && ctx.form === 'write';
    const saldoBefore = writes ? await ctx.send('saldo-user', method, key) : undefined;
    const invite = await sendAs(ctx, endpoint, method, params, ordinaryIntent(ctx, 'ENV-3'));
    if (saldoBefore && (invite.body as { ok?: unknown } | undefined)?.ok === true)
      balances.push(judge('BAL-2', { invite, saldoBefore, saldoAfter: await ctx.send('saldo-user', method, key) }));
    return invite;
  };
  const pair: [Exchange, Exchange] =
    endpoint === 'history-transaksi'
      ? await comparablePair(ctx, api, send, [base(), rename(base(), name, alias)])
      : await settledStates(ctx, [await send(base()), await send(rename(base(), name, alias))]);
  await stateControl(ctx, api, pair, (params) => sendAs(ctx, endpoint, method, params, ordinaryIntent(ctx, 'ENV-3')));
  if (name !== 'api_key') return [judge('ENV-3', { pair }), ...balances];
  // A wrong key under either name: the same refusal (ok, status), as for every other outcome.
  const wrong = { ...base(), api_key: WRONG_KEY };
  const refused: [Exchange, Exchange] = [
    await sendAs(ctx, endpoint, method, wrong, WRONG_KEY_INTENT),
    await sendAs(ctx, endpoint, method, rename(wrong, 'api_key', alias), WRONG_KEY_INTENT),
  ];
  return [judge('ENV-3', { pair }), judge('ENV-3', { pair: refused }), ...balances];
}

/** ENV-2: GET and POST give the same outcome, for an ordinary call and for one with a wrong key. */
function getBesidePost({ api, endpoint, area, invite, needs }: EnvelopeOf): Scenario {
  return {
    title: `ENV-2 ${endpoint} GET+POST: GET and POST give the same outcome`,
    clauses: ['ENV-2'],
    area,
    endpoint,
    methods: ['GET', 'POST'],
    aliases: [],
    needs: [...needs],
    ...(invite ? { invite: { writes: 2, risk: 1, priority: 3, safe: true } } : {}),
    requests: 8,
    async run(ctx) {
      const send = (params: Params, which: 0 | 1) =>
        sendAs(ctx, endpoint, which === 0 ? 'GET' : 'POST', params, ordinaryIntent(ctx, 'ENV-2'));
      const pair: [Exchange, Exchange] =
        endpoint === 'history-transaksi'
          ? await comparablePair(ctx, api, send, [baseParams(ctx, endpoint), baseParams(ctx, endpoint)])
          : await settledStates(ctx, [
              await send(baseParams(ctx, endpoint), 0),
              await send(baseParams(ctx, endpoint), 1),
            ]);
      await stateControl(ctx, api, pair, (params, m) => sendAs(ctx, endpoint, m, params, ordinaryIntent(ctx, 'ENV-2')));
      const wrong = { ...baseParams(ctx, endpoint), api_key: WRONG_KEY };
      const badG = await sendAs(ctx, endpoint, 'GET', wrong, WRONG_KEY_INTENT);
      const badP = await sendAs(ctx, endpoint, 'POST', wrong, WRONG_KEY_INTENT);
      return [judge('ENV-2', { pair }), judge('ENV-2', { pair: [badG, badP] })];
    },
  };
}

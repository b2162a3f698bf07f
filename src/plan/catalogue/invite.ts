import { dateOf, recordOf, saldoOf } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import { forms } from '../../openapi/numbers.js';
import { type Exchange, METHODS, type Method, type Params } from '../../openapi/types.js';
import { type InviteIntent, replaysAnother } from '../../target/invite-ledger.js';
import { unusualTrxIds } from '../../target/trx-ids.js';
import { showExchange } from '../observations.js';
import { compareLimit, inviteParams, testNumber } from '../sampling.js';
import {
  allAnswered,
  chargedSaldo,
  type Judgement,
  judge,
  NotJudged,
  othersBetween,
  othersOn,
  ownIds,
  PreconditionFailed,
  rename,
  type Scenario,
  type ScenarioContext,
  steadySaldo,
  without,
} from '../scenario.js';
import { authScenarios } from './auth.js';
import { envelopeScenarios } from './envelope.js';

/** The bad msisdns INV-3 sends, by label (titles carry the label, never a number). */
export const BAD_MSISDNS = {
  'a wrong prefix': '12345678901',
  'a letter': '08123abc4567',
  'a plus sign': '+6281234567890',
} as const;

const body = (ex: Exchange): Record<string, unknown> => (ex.body ?? {}) as Record<string, unknown>;

/**
 * The intent of an invite a clause says must be refused: in the `write` form that clause's; in the `safe` form a
 * guard's (a used trx_id, a product that cannot exist), which judges nothing of the value it carries when refused
 * or answered as the used trx_id's first invite again.
 */
function refusalIntent(ctx: ScenarioContext, clause: 'INV-3' | 'INV-4'): InviteIntent {
  return ctx.form === 'write' ? { expect: 'refusal', clause } : { expect: 'refusal', clause: 'used-trx' };
}

/** Names the invites that are carried out carry, by method: accented Latin, an emoji, Arabic, Chinese. */
const NAMES_CARRIED_OUT: Record<Method, readonly string[]> = {
  GET: ['Zoë Ñúñez', 'Ani 😀'],
  POST: ['محمد', '王小明'],
};

/** The invite, unless it was refused: the clauses of a successful invite cannot be judged on a refusal. */
function succeeded(ex: Exchange, clauses: string): Exchange {
  const b = body(ex);
  if (b.ok !== true)
    throw new PreconditionFailed(
      `the invite was refused (ok ${String(b.ok)}, status ${String(b.status)}): ${clauses} ${clauses.includes(' ') ? 'need' : 'needs'} a successful invite`,
    );
  return ex;
}

/** Every invite-member scenario's history read of one trx_id, and whether an answer carries it. */
const history = (ctx: ScenarioContext, method: Method, trx: unknown): Promise<Exchange> =>
  ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, q: trx, limit: compareLimit(ctx) });
const carries = (trx: unknown) => (ex: Exchange) => recordOf(ex, trx) !== undefined;

/**
 * The invite area, run in order in one worker: ENV-1..4 and AUTH-1 on invite-member, then INV-1..6 and
 * BAL-2. Refusal scenarios (INV-3, INV-4, AUTH-1) count against the cap only if an invite is accepted.
 */
export function inviteScenarios(api: ApiModel): Scenario[] {
  return [
    ...envelopeScenarios(api, 'invite-member', 'invite'),
    ...authScenarios('invite-member', 'invite'),
    ...METHODS.flatMap((method, m) => [
      ...successInvites(method, m),
      ...badMsisdnScenarios(api, method),
      ...missingParameterScenarios(api, method),
      repeatScenario(api, method),
      unusualIdScenario(method),
      namesScenario(method),
      seenScenario(method),
    ]),
  ];
}

/**
 * A successful invite of every configured test number, in each form by one method or the other: a provider may
 * get one number wrong (a 62-form number that holds "08" further on, a member whose slot reaches two digits). The
 * third goes without `kind` (optional: the product says it), and the balance judges that one too.
 */
function successInvites(method: Method, m: number): Scenario[] {
  const out: Scenario[] = [];
  for (const [i, form] of (['08', '62', '08'] as const).entries()) {
    const shown = i % 2 === m ? form : form === '08' ? '62' : '08';
    out.push({
      title: `INV-1 INV-2 BAL-2 invite-member ${method}: a successful invite of test number ${i + 1} in ${shown}-form${i === 2 ? ' without kind' : ''}`,
      clauses: ['INV-1', 'INV-2', 'BAL-2'],
      area: 'invite',
      endpoint: 'invite-member',
      methods: [method],
      aliases: [],
      invite: { writes: 1, risk: 0, priority: 1, safe: false },
      requests: 3,
      async run(ctx) {
        const f = forms(testNumber(ctx, i));
        const key = { api_key: ctx.target.apiKey };
        const saldoBefore = await ctx.send('saldo-user', method, key);
        const { kind, ...params } = inviteParams(ctx, shown === '08' ? f.f08 : f.f62);
        const invite = await ctx.invite(method, i === 2 ? params : { ...params, kind }, {
          expect: 'success',
          clause: 'INV-1',
        });
        const saldoAfter = await ctx.send('saldo-user', method, key);
        succeeded(invite, 'INV-1, INV-2 and BAL-2');
        if (saldoOf(saldoBefore) === undefined || saldoOf(saldoAfter) === undefined)
          throw new PreconditionFailed(
            'the balance could not be read as a number (BAL-1 judges that): BAL-2 has nothing to compare',
          );
        return [
          judge('INV-1', { exchange: invite }),
          judge('INV-2', { exchange: invite }),
          judge('BAL-2', { invite, saldoBefore, saldoAfter }),
        ];
      },
    });
  }
  return out;
}

/** Every bad value under every name of msisdn: a provider may check one name and not another. */
function badMsisdnScenarios(api: ApiModel, method: Method): Scenario[] {
  const out: Scenario[] = [];
  const msisdnNames = api.namesOf('invite-member', 'msisdn');
  const bad: [string, string, string][] = msisdnNames.flatMap((n) =>
    Object.entries(BAD_MSISDNS).map(([label, v]): [string, string, string] => [n, label, v]),
  );
  for (const [name, label, value] of bad) {
    out.push({
      title: `INV-3 invite-member ${method}${name === 'msisdn' ? '' : ` via ${name}`}: ${name} with ${label} is refused`,
      clauses: ['INV-3'],
      area: 'invite',
      endpoint: 'invite-member',
      methods: [method],
      aliases: name === 'msisdn' ? [] : [name],
      plainOpenApi: false,
      invite: { writes: 0, risk: 1, priority: 0, safe: true },
      requests: 1,
      async run(ctx) {
        const ex = await ctx.invite(
          method,
          rename(inviteParams(ctx, value), 'msisdn', name),
          refusalIntent(ctx, 'INV-3'),
        );
        return [judge('INV-3', { exchange: ex })];
      },
    });
  }
  return out;
}

/** INV-4: a request without one of its required parameters, or with a bad kind under every name, is refused. */
function missingParameterScenarios(api: ApiModel, method: Method): Scenario[] {
  const out: Scenario[] = [];
  const kindNames = api.namesOf('invite-member', 'kind');
  for (const [label, change, safe, aliases] of [
    ['without trx_id', (p: Params) => without(p, 'trx_id'), false, []],
    ['without product_code', (p: Params) => without(p, 'product_code'), true, []],
    ['without msisdn', (p: Params) => without(p, 'msisdn'), true, []],
    ...kindNames.map(
      (n) =>
        [
          `with ${n}=family`,
          (p: Params) => ({ ...without(p, 'kind'), [n]: 'family' }),
          true,
          n === 'kind' ? [] : [n],
        ] as const,
    ),
  ] as const) {
    out.push({
      title: `INV-4 invite-member ${method}${aliases.length ? ` via ${aliases.join(',')}` : ''}: a request ${label} is refused`,
      clauses: ['INV-4'],
      area: 'invite',
      endpoint: 'invite-member',
      methods: [method],
      aliases: [...aliases],
      plainOpenApi: false,
      // Without trx_id no used one can guard a broken target from charging: that case needs writes.
      invite: { writes: 0, risk: 2, priority: 0, safe },
      requests: 2,
      async run(ctx) {
        // As sent bare and with every optional parameter: a provider may check one form and not the other.
        const bare = change(inviteParams(ctx));
        const full = change({ ...inviteParams(ctx), name: 'H2H Contract Test' });
        const answers = await allAnswered([bare, full].map((p) => ctx.invite(method, p, refusalIntent(ctx, 'INV-4'))));
        return answers.map((exchange) => judge('INV-4', { exchange }));
      },
    });
  }
  return out;
}

/**
 * A used trx_id as a provider that trims its input reads it the same: a space before it (one respelling: each may
 * be charged, and the default cap of 10 still holds every invite clause).
 */
const respelled = (trx: string): string[] => [` ${trx}`];

/** INV-5: a repeated trx_id creates no second transaction or charge, under every name and by both methods. */
function repeatScenario(api: ApiModel, method: Method): Scenario {
  const trxNames = api.namesOf('invite-member', 'trx_id');
  return {
    title: `INV-5 invite-member ${method}: a repeated trx_id creates no second transaction or charge`,
    clauses: ['INV-5'],
    area: 'invite',
    endpoint: 'invite-member',
    methods: [method],
    aliases: [],
    // First among the writes: no earlier invite's charge can land in its window (a provider may charge late). One
    // of its writes is the used ID respelled, which a provider may carry out as another ID.
    invite: { writes: 2, risk: 1, priority: 0, safe: false },
    requests: 11,
    settles: true,
    async run(ctx) {
      const key = { api_key: ctx.target.apiKey };
      const params = inviteParams(ctx);
      const saldoBefore = await ctx.send('saldo-user', method, key);
      const invite = await ctx.invite(method, params, { expect: 'success', clause: 'INV-5' });
      // A refused first invite leaves its trx_id unused: a repeat could then be carried out, and charged.
      succeeded(invite, 'INV-5');
      // The provider's date of it, and what else the account shows that day: another client's work (a
      // reseller's account is shared with production) would move the balance too.
      const shown = await ctx.settle(() => history(ctx, method, params.trx_id), carries(params.trx_id));
      const date = dateOf(shown, params.trx_id);
      const othersBefore = date ? await othersOn(ctx, method, date, ownIds(ctx, params.trx_id)) : undefined;
      // The price of one invite: a provider may charge when it completes the invite, so look again until the
      // balance has moved (within the settle window).
      const saldoBetween = await chargedSaldo(ctx, method, saldoBefore);
      // The repeat under every name of trx_id and by both methods: a provider may check one name or one
      // method and not another. These first carry another member (a replay of the first answer still names the
      // first member, so it shows as a replay and costs nothing); the same invite exactly goes last.
      const repeats: Exchange[] = [];
      const other = forms(testNumber(ctx, 1)).f08;
      const tries: [Method, Params][] = [
        ...trxNames.flatMap((n) =>
          [method, METHODS.find((m) => m !== method) ?? method].map((m): [Method, Params] => [
            m,
            rename({ ...params, msisdn: other }, 'trx_id', n),
          ]),
        ),
        [method, params],
      ];
      for (const [m, p] of tries) {
        const repeat = await ctx.invite(m, p, { expect: 'refusal', clause: 'INV-5' });
        repeats.push(repeat);
        if (body(repeat).ok !== true || replaysAnother(api, p, repeat)) continue;
        // Accepted, and not visibly another member's first answer (one test number makes every repeat look the
        // same): a balance at rest where it was says it was a replay; else it may be a second charge, which
        // history and the balance judge, and no more repeats go out.
        const now = await steadySaldo(ctx, method);
        if (saldoOf(now) !== undefined && saldoOf(now) === saldoOf(saldoBetween)) ctx.wasReplay(repeat, 'INV-5');
        else break;
      }
      const saldoAfter = await steadySaldo(ctx, method);
      // The used ID respelled, whitespace around it: a provider may take it for another ID (and carry it out, its
      // right: the balance no longer judges) or for the same one; one that checks the ID as sent and stores it
      // trimmed records a second transaction of the used ID, which history shows.
      for (const spelled of respelled(String(params.trx_id))) {
        const again = await ctx.invite(method, { ...params, trx_id: spelled }, { expect: 'success', clause: 'INV-5' });
        if (body(again).ok === true && replaysAnother(api, { ...params, trx_id: spelled }, again))
          ctx.wasReplay(again, 'INV-5');
      }
      // Wait until the invite shows, so that a second record of its trx_id would show too.
      const hist = await ctx.settle(() => history(ctx, method, params.trx_id), carries(params.trx_id));
      const othersActive =
        !date ||
        !othersBefore ||
        othersBetween(othersBefore, await othersOn(ctx, method, date, ownIds(ctx, params.trx_id)));
      return [judge('INV-5', { invite, repeats, saldoBefore, saldoBetween, saldoAfter, history: hist, othersActive })];
    },
  };
}

/** INV-1 on transaction IDs outside the run's own rule: a provider may refuse them; one carried out echoes it. */
function unusualIdScenario(method: Method): Scenario {
  return {
    title: `INV-1 invite-member ${method}: transaction IDs of unusual shape are said back as sent`,
    clauses: ['INV-1'],
    area: 'invite',
    endpoint: 'invite-member',
    methods: [method],
    aliases: [],
    invite: { writes: 3, risk: 0, priority: 6, safe: false },
    requests: 3,
    async run(ctx) {
      // Outside the rule the run's own IDs keep to (--trx-id-length, --trx-id-chars): a provider may refuse
      // them, which is its right; one it carries out must say the ID back as it was sent.
      const ids = unusualTrxIds([ctx.newTrxId(), ctx.newTrxId(), ctx.newTrxId()]);
      const answers: Exchange[] = [];
      for (const { id } of ids)
        answers.push(
          await ctx.invite(method, { ...inviteParams(ctx), trx_id: id }, { expect: 'success', clause: 'INV-1' }),
        );
      const done = answers.filter((ex) => body(ex).ok === true);
      // The provider's rule for IDs, as far as these show it (the reading's `trx-id`).
      const shows = answers.find((ex) => body(ex).ok !== true) ?? answers[0];
      ctx.observe({
        point: 'reading',
        knob: 'trx-id',
        value: done.length === answers.length ? 'any' : 'alnum20',
        ...(shows ? { evidence: showExchange(shows) } : {}),
      });
      if (done.length === 0)
        throw new NotJudged(
          `the provider refused every transaction ID of unusual shape (${ids.map((i) => i.label).join(', ')}): its rule for IDs is its own`,
        );
      return done.map((exchange) => judge('INV-1', { exchange }));
    },
  };
}

/** INV-1, INV-2, INV-6 on invites carrying names of other scripts: a name is stored and shown. */
function namesScenario(method: Method): Scenario {
  return {
    title: `INV-1 INV-2 INV-6 invite-member ${method}: members named in other scripts are invited and seen`,
    clauses: ['INV-1', 'INV-2', 'INV-6'],
    area: 'invite',
    endpoint: 'invite-member',
    methods: [method],
    aliases: [],
    invite: { writes: 2, risk: 0, priority: 3, safe: false },
    requests: 8,
    settles: true,
    async run(ctx) {
      // A name is stored and shown: a provider may fail to keep one that is not in its character set.
      const key = { api_key: ctx.target.apiKey };
      const judged: Judgement[] = [];
      for (const name of NAMES_CARRIED_OUT[method]) {
        const params: Params = { ...inviteParams(ctx, testNumber(ctx, judged.length)), name };
        const trx = params.trx_id;
        const invite = succeeded(await ctx.invite(method, params, { expect: 'success', clause: 'INV-6' }), 'INV-6');
        const lookup = await ctx.settle(
          () => ctx.send('cek-trx-id', method, { ...key, trx_id: trx }),
          (ex) => body(ex).ok === true && (body(ex).data as { status?: unknown } | undefined)?.status === 'SUCCESS',
        );
        const hist = await ctx.settle(() => history(ctx, method, trx), carries(trx));
        judged.push(
          judge('INV-1', { exchange: invite }),
          judge('INV-2', { exchange: invite }),
          judge('INV-6', { invite, lookup, history: hist }),
        );
      }
      return judged;
    },
  };
}

/** INV-6: a successful invite is seen in cek-trx-id and history; how soon is the reading's `lag`. */
function seenScenario(method: Method): Scenario {
  return {
    title: `INV-6 invite-member ${method}: a successful invite is seen in cek-trx-id and history`,
    clauses: ['INV-6'],
    area: 'invite',
    endpoint: 'invite-member',
    methods: [method],
    aliases: [],
    invite: { writes: 1, risk: 0, priority: 1, safe: false },
    requests: 3,
    settles: true,
    async run(ctx) {
      const key = { api_key: ctx.target.apiKey };
      const params = inviteParams(ctx);
      const trx = params.trx_id;
      const invite = succeeded(await ctx.invite(method, params, { expect: 'success', clause: 'INV-6' }), 'INV-6');
      // How soon it shows (the reading's `lag`): after the last read that missed it, by the first that found it;
      // read at a finer pace than other settles, so that the span is narrow.
      const since = performance.now();
      let missed = -1;
      let found: number | undefined;
      const lookup = await ctx.settle(
        () => ctx.send('cek-trx-id', method, { ...key, trx_id: trx }),
        (ex) => {
          const shows =
            body(ex).ok === true && (body(ex).data as { status?: unknown } | undefined)?.status === 'SUCCESS';
          const at = Math.round(performance.now() - since);
          if (shows) found ??= at;
          else missed = at;
          return shows;
        },
        { firstPauseMs: 20, growth: 1.2 },
      );
      if (found !== undefined)
        ctx.observe({ point: 'reading', knob: 'lag', value: `${missed}..${found}`, evidence: showExchange(lookup) });
      const hist = await ctx.settle(() => history(ctx, method, trx), carries(trx));
      return [judge('INV-6', { invite, lookup, history: hist })];
    },
  };
}

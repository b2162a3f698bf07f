import { randomBytes } from 'node:crypto';
import type { Evidence } from '../checks/types.js';
import type { Spec } from '../spec/load.js';
import {
  type ClauseId,
  ENDPOINTS,
  type Endpoint,
  type Exchange,
  METHODS,
  type Method,
  type Params,
} from '../spec/types.js';
import type { Target, TargetData } from './target.js';

/** Spec files of the suite, one per area. */
export const AREAS = ['envelope', 'auth', 'balance', 'history', 'lookup', 'invite'] as const;
export type Area = (typeof AREAS)[number];

/** One clause judged on one piece of evidence. */
export interface Verdict {
  clause: ClauseId;
  evidence: Evidence;
}

export interface RunContext {
  target: Target;
  data: TargetData;
  /** A fresh transaction ID, unique to this run. */
  newTrxId(): string;
}

/**
 * One test of the suite: a request (or a few) on an endpoint and method, with the clauses judged on what came
 * back. Generated from openapi.yaml (`x-aliases`), never listed by hand.
 */
export interface Scenario {
  /** Unique, human-readable; starts with the clause ids. */
  title: string;
  clauses: ClauseId[];
  area: Area;
  endpoint: Endpoint;
  methods: Method[];
  /** Alias names this scenario sends in place of canonical names. */
  aliases: string[];
  /** Invite requests it sends that could succeed (spend money): run only with writes allowed, within the cap. */
  writes: number;
  /** Order among writing scenarios when the cap cannot fit them all (lower runs first). */
  priority: number;
  /**
   * False when it sends a request that plain OpenAPI cannot call valid: an alias name, or a value it breaks on
   * purpose (a missing key, a bad msisdn). Such scenarios stay out of a run through a validation proxy.
   * @defaultValue true when `aliases` is empty
   */
  plainOpenApi?: boolean;
  /** Why it cannot run at all here (no history, writes not allowed), decided before it runs. */
  skip?: (data: TargetData) => string | undefined;
  run(ctx: RunContext): Promise<Verdict[]>;
}

/** The bad msisdns INV-3 sends, by label (titles carry the label, never a number). */
export const BAD_MSISDNS = {
  'a wrong prefix': '12345678901',
  'a letter': '08123abc4567',
  'a plus sign': '+6281234567890',
} as const;

/** A new run id for transaction IDs: `H2H` + time + random, so two runs never collide. */
export function newRunId(): string {
  return `H2H${Date.now().toString(36).toUpperCase()}${randomBytes(2).toString('hex').toUpperCase()}`;
}

/** Transaction IDs `<prefix>-0001`, `<prefix>-0002`, ...: one factory per process keeps them unique. */
export function trxFactory(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(4, '0')}`;
}

export function runContext(target: Target, data: TargetData, newTrxId = trxFactory(newRunId())): RunContext {
  return { target, data, newTrxId };
}

const needHistory = (data: TargetData): string | undefined =>
  data.record ? undefined : 'the account has no history: dates, IDs and numbers are taken from its own records';
const needKnownTrx = (data: TargetData): string | undefined =>
  data.knownTrxId ? undefined : 'no known transaction: pass --trx-id, or use an account with history';

/** A phone number in 08-form and in 62-form. */
export function forms(msisdn: string): { f08: string; f62: string } {
  const national = msisdn.startsWith('62') ? msisdn.slice(2) : msisdn.startsWith('0') ? msisdn.slice(1) : msisdn;
  return { f08: `0${national}`, f62: `62${national}` };
}

/** Params with one canonical name replaced by an alias. */
function rename(params: Params, from: string, to: string): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(params)) out[k === from ? to : k] = v;
  return out;
}

/**
 * Without writes, invites name this product, which no reseller sells: with the reused transaction ID that is a
 * second guard against any charge, and the request stays valid for the document.
 */
export const READ_ONLY_PRODUCT = 'H2H-CONTRACT-NO-SUCH-PRODUCT';
/** Without writes and without configured test numbers: a well-formed number for requests that cannot succeed. */
export const PLACEHOLDER_MSISDN = '081200000000';

function inviteParams(ctx: RunContext, trxId: string, msisdn?: string): Params {
  const t = ctx.target;
  return {
    api_key: t.apiKey,
    trx_id: trxId,
    product_code: t.allowWrites ? (t.product ?? '') : READ_ONLY_PRODUCT,
    msisdn: msisdn ?? forms(t.msisdns[0] ?? PLACEHOLDER_MSISDN).f08,
    ...(t.kind ? { kind: t.kind } : {}),
  };
}

/**
 * An invite request that cannot succeed on a contract-keeping API without writes: it reuses a transaction ID
 * that already exists (INV-5), so a second guard stands behind whatever the scenario itself breaks.
 */
function usedTrx(ctx: RunContext): string {
  return ctx.data.knownTrxId ?? '';
}

/** A sample value for a canonical parameter, taken from the target's config and its own history. */
function sample(ctx: RunContext, endpoint: Endpoint, name: string, trxId: string): unknown {
  const r = ctx.data.record;
  switch (name) {
    case 'api_key':
      return ctx.target.apiKey;
    case 'trx_id':
      return endpoint === 'invite-member' ? trxId : ctx.data.knownTrxId;
    case 'product_code':
      return ctx.target.allowWrites ? ctx.target.product : READ_ONLY_PRODUCT;
    case 'msisdn':
      return forms(ctx.target.msisdns[0] ?? PLACEHOLDER_MSISDN).f08;
    case 'name':
      return 'H2H Contract Test';
    case 'kind':
      return ctx.target.kind;
    case 'limit':
      return 5;
    case 'q':
      return r?.trx_id;
    case 'date':
      return r?.date;
    case 'month':
      return r?.date?.slice(5, 7);
    case 'year':
      return r?.date?.slice(0, 4);
    default:
      return undefined;
  }
}

/** The request an endpoint's success scenarios send, before any alias. */
function baseParams(ctx: RunContext, endpoint: Endpoint, trxId: string): Params {
  switch (endpoint) {
    case 'saldo-user':
      return { api_key: ctx.target.apiKey };
    case 'history-transaksi':
      // A past date of the account's own history: its records no longer change while invites run.
      return { api_key: ctx.target.apiKey, limit: 5, ...(ctx.data.record ? { date: ctx.data.record.date } : {}) };
    case 'cek-trx-id':
      return { api_key: ctx.target.apiKey, trx_id: ctx.data.knownTrxId };
    case 'invite-member':
      return inviteParams(ctx, trxId);
  }
}

/** The success clauses judged on one answer of an endpoint. */
const SUCCESS_CLAUSES: Record<Endpoint, ClauseId[]> = {
  'saldo-user': ['BAL-1'],
  'history-transaksi': ['HIS-1'],
  'cek-trx-id': ['TRX-1'],
  'invite-member': ['INV-1', 'INV-2'],
};

const AREA_OF: Record<Endpoint, Area> = {
  'saldo-user': 'balance',
  'history-transaksi': 'history',
  'cek-trx-id': 'lookup',
  'invite-member': 'invite',
};

const one = (clause: ClauseId, evidence: Evidence): Verdict => ({ clause, evidence });

/**
 * Every scenario of the suite, for a target that does or does not allow writes. Without writes, invite
 * scenarios reuse an existing transaction ID (so none can succeed on a contract-keeping API) or are skipped.
 */
export function buildScenarios(spec: Spec, opts: { allowWrites: boolean }): Scenario[] {
  const out: Scenario[] = [];
  const W = opts.allowWrites;
  const add = (s: Scenario): void => {
    out.push(s);
  };
  const needsFor = (endpoint: Endpoint, data: TargetData): string | undefined =>
    endpoint === 'cek-trx-id' ? needKnownTrx(data) : undefined;

  for (const endpoint of ENDPOINTS) {
    const invite = endpoint === 'invite-member';
    const inviteSkip = (data: TargetData): string | undefined =>
      invite && !W
        ? needKnownTrx(data)
          ? `writes not allowed and ${needKnownTrx(data)}`
          : undefined
        : needsFor(endpoint, data);
    const area = AREA_OF[endpoint];
    // Every invite-member scenario lives in the invite area, whose file runs in order in one worker, so
    // balance readings (BAL-2, INV-5) never see another test's charge.
    const envArea: Area = invite ? 'invite' : 'envelope';

    for (const method of METHODS) {
      // ENV-1 + ENV-4 (+ the success clauses): one ordinary request and one refused for its key.
      add({
        title: `ENV-1 ENV-4 ${endpoint} ${method}: envelope of a ${invite && !W ? 'refused' : 'successful'} and a refused call`,
        clauses: ['ENV-1', 'ENV-4'],
        area: envArea,
        endpoint,
        methods: [method],
        aliases: [],
        writes: invite && W ? 1 : 0,
        priority: 6,
        skip: inviteSkip,
        async run(ctx) {
          const trx = invite && !W ? usedTrx(ctx) : ctx.newTrxId();
          const ok = await ctx.target.send(endpoint, method, baseParams(ctx, endpoint, trx));
          const bad = await ctx.target.send(endpoint, method, {
            ...baseParams(ctx, endpoint, usedTrx(ctx) || trx),
            api_key: 'h2h-wrong-key',
          });
          return [
            one('ENV-1', { exchange: ok }),
            one('ENV-4', { exchange: ok }),
            one('ENV-1', { exchange: bad }),
            one('ENV-4', { exchange: bad }),
          ];
        },
      });

      // AUTH-1: missing, empty, wrong key, and a wrong key under the alias.
      for (const [label, change] of [
        ['missing', (p: Params) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'api_key'))],
        ['empty', (p: Params) => ({ ...p, api_key: '' })],
        ['wrong', (p: Params) => ({ ...p, api_key: 'h2h-wrong-key-0000' })],
        ['wrong via key', (p: Params) => rename({ ...p, api_key: 'h2h-wrong-key-0000' }, 'api_key', 'key')],
      ] as const) {
        add({
          title: `AUTH-1 ${endpoint} ${method}: ${label} api_key is refused without account data`,
          clauses: ['AUTH-1'],
          area: 'auth',
          endpoint,
          methods: [method],
          aliases: label.endsWith('key') && label.includes('via') ? ['key'] : [],
          plainOpenApi: label === 'wrong',
          writes: 0,
          priority: 0,
          skip: (data) => (invite ? needKnownTrx(data) : undefined),
          async run(ctx) {
            const ex = await ctx.target.send(endpoint, method, change(baseParams(ctx, endpoint, usedTrx(ctx))));
            return [one('AUTH-1', { exchange: ex }), one('ENV-1', { exchange: ex })];
          },
        });
      }

      // ENV-3: each alias of each parameter gives the outcome of its canonical name.
      const info = spec.operation(endpoint);
      for (const p of info.params) {
        for (const alias of p.aliases) {
          add({
            title: `ENV-3 ${endpoint} ${method}: alias ${alias} of ${p.name}`,
            clauses: ['ENV-3'],
            area: envArea,
            endpoint,
            methods: [method],
            aliases: [alias],
            writes: invite && W ? 2 : 0,
            priority: 8,
            skip: (data) =>
              inviteSkip(data) ?? (['q', 'date', 'month', 'year'].includes(p.name) ? needHistory(data) : undefined),
            async run(ctx) {
              const trxA = invite && W ? ctx.newTrxId() : usedTrx(ctx);
              const trxB = invite && W ? ctx.newTrxId() : usedTrx(ctx);
              const base = (trx: string): Params => {
                const params = baseParams(ctx, endpoint, trx);
                if (params[p.name] === undefined) params[p.name] = sample(ctx, endpoint, p.name, trx);
                return params;
              };
              const a = await ctx.target.send(endpoint, method, base(trxA));
              const b = await ctx.target.send(endpoint, method, rename(base(trxB), p.name, alias));
              return [one('ENV-3', { pair: [a, b] }), one('ENV-1', { exchange: b })];
            },
          });
        }
      }
    }

    // ENV-2: GET and POST with the same parameters, for a successful and a refused request.
    add({
      title: `ENV-2 ${endpoint}: GET and POST give the same outcome`,
      clauses: ['ENV-2'],
      area: envArea,
      endpoint,
      methods: ['GET', 'POST'],
      aliases: [],
      writes: invite && W ? 2 : 0,
      priority: 3,
      skip: inviteSkip,
      async run(ctx) {
        const trxA = invite && W ? ctx.newTrxId() : usedTrx(ctx);
        const trxB = invite && W ? ctx.newTrxId() : usedTrx(ctx);
        const g = await ctx.target.send(endpoint, 'GET', baseParams(ctx, endpoint, trxA));
        const p = await ctx.target.send(endpoint, 'POST', baseParams(ctx, endpoint, trxB));
        const badG = await ctx.target.send(endpoint, 'GET', {
          ...baseParams(ctx, endpoint, usedTrx(ctx) || trxA),
          api_key: 'h2h-wrong-key-0000',
        });
        const badP = await ctx.target.send(endpoint, 'POST', {
          ...baseParams(ctx, endpoint, usedTrx(ctx) || trxB),
          api_key: 'h2h-wrong-key-0000',
        });
        return [one('ENV-2', { pair: [g, p] }), one('ENV-2', { pair: [badG, badP] })];
      },
    });

    if (endpoint !== 'invite-member') {
      // The endpoint's success clauses, on both methods, with each alias of api_key.
      for (const method of METHODS) {
        for (const keyName of [
          'api_key',
          ...(spec.operation(endpoint).params.find((p) => p.name === 'api_key')?.aliases ?? []),
        ]) {
          const lookupNames = endpoint === 'cek-trx-id' ? ['trx_id', 'trxid'] : [''];
          for (const trxName of lookupNames) {
            const aliases = [keyName, trxName].filter((n) => n && n !== 'api_key' && n !== 'trx_id');
            add({
              title: `${SUCCESS_CLAUSES[endpoint].join(' ')} ${endpoint} ${method}: success${aliases.length ? ` via ${aliases.join(', ')}` : ''}`,
              clauses: SUCCESS_CLAUSES[endpoint],
              area,
              endpoint,
              methods: [method],
              aliases,
              writes: 0,
              priority: 0,
              skip: (data) => needsFor(endpoint, data),
              async run(ctx) {
                let params = rename(baseParams(ctx, endpoint, ''), 'api_key', keyName);
                if (trxName) params = rename(params, 'trx_id', trxName);
                const ex = await ctx.target.send(endpoint, method, params);
                return SUCCESS_CLAUSES[endpoint].map((c) => one(c, { exchange: ex }));
              },
            });
          }
        }
      }
    }
  }

  addHistory(spec, add);
  addLookupRefusal(add);
  addInvite(spec, add, W);
  return out;
}

function addHistory(spec: Spec, add: (s: Scenario) => void): void {
  const params = spec.operation('history-transaksi').params;
  const names = (canonical: string): string[] => [
    canonical,
    ...(params.find((p) => p.name === canonical)?.aliases ?? []),
  ];
  for (const method of METHODS) {
    for (const limit of [1, 2]) {
      add({
        title: `HIS-2 history-transaksi ${method}: limit=${limit} returns at most ${limit}`,
        clauses: ['HIS-2', 'HIS-1'],
        area: 'history',
        endpoint: 'history-transaksi',
        methods: [method],
        aliases: [],
        writes: 0,
        priority: 0,
        async run(ctx) {
          const ex = await ctx.target.send('history-transaksi', method, { api_key: ctx.target.apiKey, limit });
          return [one('HIS-2', { exchange: ex }), one('HIS-1', { exchange: ex })];
        },
      });
    }
    // HIS-3 and HIS-5: each filter alone and together, by canonical name and by every alias.
    const filterSets: string[][] = [['date'], ['month'], ['year'], ['month', 'year'], ['date', 'month', 'year']];
    for (const set of filterSets) {
      const variants =
        set.length === 1 ? names(set[0] ?? '') : [set.join('+'), set.map((n) => names(n)[1] ?? n).join('+')];
      for (const variant of variants) {
        const sent = set.length === 1 ? [variant] : variant.split('+');
        const aliases = sent.filter((n) => !set.includes(n));
        add({
          title: `HIS-3 HIS-5 history-transaksi ${method}: filter ${sent.join(' + ')}`,
          clauses: ['HIS-3', 'HIS-5'],
          area: 'history',
          endpoint: 'history-transaksi',
          methods: [method],
          aliases,
          writes: 0,
          priority: 0,
          skip: needHistory,
          async run(ctx) {
            const r = ctx.data.record ?? {};
            const p: Params = { api_key: ctx.target.apiKey, limit: 100 };
            set.forEach((canonical, i) => {
              p[sent[i] ?? canonical] = sample(ctx, 'history-transaksi', canonical, '');
            });
            const wide = await ctx.target.send('history-transaksi', method, p);
            // HIS-5 narrows with q=<trx_id> so one page surely holds the record.
            const narrow = await ctx.target.send('history-transaksi', method, { ...p, q: r.trx_id, limit: 10 });
            return [
              one('HIS-3', { exchange: wide }),
              one('HIS-3', { exchange: narrow }),
              one('HIS-5', { exchange: narrow, expectedRecord: r }),
              one('HIS-1', { exchange: wide }),
            ];
          },
        });
      }
    }
    // HIS-4 and HIS-5: q by each name, with a transaction ID and a member number.
    for (const qName of names('q')) {
      for (const what of ['trx_id', 'member_number'] as const) {
        add({
          title: `HIS-4 HIS-5 history-transaksi ${method}: ${qName}=<${what}>`,
          clauses: ['HIS-4', 'HIS-5'],
          area: 'history',
          endpoint: 'history-transaksi',
          methods: [method],
          aliases: qName === 'q' ? [] : [qName],
          writes: 0,
          priority: 0,
          skip: needHistory,
          async run(ctx) {
            const r = ctx.data.record ?? {};
            const ex = await ctx.target.send('history-transaksi', method, {
              api_key: ctx.target.apiKey,
              [qName]: r[what],
              ...(what === 'member_number' ? { date: r.date } : {}),
              limit: 100,
            });
            return [
              one('HIS-4', { exchange: ex }),
              one('HIS-5', { exchange: ex, expectedRecord: r }),
              one('HIS-1', { exchange: ex }),
            ];
          },
        });
      }
    }
  }
}

function addLookupRefusal(add: (s: Scenario) => void): void {
  for (const method of METHODS) {
    add({
      title: `TRX-2 cek-trx-id ${method}: an unknown ID is not found`,
      clauses: ['TRX-2'],
      area: 'lookup',
      endpoint: 'cek-trx-id',
      methods: [method],
      aliases: [],
      writes: 0,
      priority: 0,
      async run(ctx) {
        const ex = await ctx.target.send('cek-trx-id', method, {
          api_key: ctx.target.apiKey,
          trx_id: `${ctx.newTrxId()}-NOPE`,
        });
        return [one('TRX-2', { exchange: ex }), one('ENV-1', { exchange: ex }), one('ENV-4', { exchange: ex })];
      },
    });
  }
}

function addInvite(spec: Spec, add: (s: Scenario) => void, W: boolean): void {
  const msisdnNames = [
    'msisdn',
    ...(spec.operation('invite-member').params.find((p) => p.name === 'msisdn')?.aliases ?? []),
  ];
  const writesSkip = (): string | undefined => (W ? undefined : 'needs writes: run with --allow-writes');
  const safeSkip = (data: TargetData): string | undefined =>
    W ? undefined : needKnownTrx(data) ? `writes not allowed and ${needKnownTrx(data)}` : undefined;
  for (const method of METHODS) {
    for (const form of ['08', '62'] as const) {
      add({
        title: `INV-1 INV-2 BAL-2 invite-member ${method}: a successful invite of a ${form}-form number`,
        clauses: ['INV-1', 'INV-2', 'BAL-2'],
        area: 'invite',
        endpoint: 'invite-member',
        methods: [method],
        aliases: [],
        writes: 1,
        priority: 1,
        skip: writesSkip,
        async run(ctx) {
          const f = forms(ctx.target.msisdns[form === '08' ? 0 : 1 % ctx.target.msisdns.length] ?? '');
          const saldoBefore = await ctx.target.send('saldo-user', method, { api_key: ctx.target.apiKey });
          const invite = await ctx.target.send(
            'invite-member',
            method,
            inviteParams(ctx, ctx.newTrxId(), form === '08' ? f.f08 : f.f62),
          );
          const saldoAfter = await ctx.target.send('saldo-user', method, { api_key: ctx.target.apiKey });
          return [
            one('INV-1', { exchange: invite }),
            one('INV-2', { exchange: invite }),
            one('BAL-2', { invite, saldoBefore, saldoAfter }),
            one('ENV-1', { exchange: invite }),
          ];
        },
      });
    }
    // INV-3: bad numbers, by every name of msisdn.
    const cases: [string, string, string][] = [
      ...Object.entries(BAD_MSISDNS).map(([label, v]): [string, string, string] => ['msisdn', label, v]),
      ...msisdnNames
        .slice(1)
        .map((n): [string, string, string] => [n, 'a wrong prefix', BAD_MSISDNS['a wrong prefix']]),
    ];
    for (const [name, label, value] of cases) {
      add({
        title: `INV-3 invite-member ${method}: ${name} with ${label} is refused`,
        clauses: ['INV-3'],
        area: 'invite',
        endpoint: 'invite-member',
        methods: [method],
        aliases: name === 'msisdn' ? [] : [name],
        plainOpenApi: false,
        writes: W ? 1 : 0,
        priority: 4,
        skip: safeSkip,
        async run(ctx) {
          const trx = W ? ctx.newTrxId() : usedTrx(ctx);
          const ex = await ctx.target.send(
            'invite-member',
            method,
            rename(inviteParams(ctx, trx, value), 'msisdn', name),
          );
          return [one('INV-3', { exchange: ex }), one('ENV-1', { exchange: ex }), one('ENV-4', { exchange: ex })];
        },
      });
    }
    // INV-4: a required parameter missing, or a kind that is neither akrab nor circle.
    for (const [label, change] of [
      ['without trx_id', (p: Params) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'trx_id'))],
      [
        'without product_code',
        (p: Params) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'product_code')),
      ],
      ['without msisdn', (p: Params) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'msisdn'))],
      ['with kind=family', (p: Params) => ({ ...p, kind: 'family' })],
    ] as const) {
      const noTrx = label === 'without trx_id';
      add({
        title: `INV-4 invite-member ${method}: a request ${label} is refused`,
        clauses: ['INV-4'],
        area: 'invite',
        endpoint: 'invite-member',
        methods: [method],
        aliases: [],
        plainOpenApi: false,
        writes: W ? 1 : 0,
        priority: 5,
        // Without trx_id nothing guards a broken target from charging: that case needs writes.
        skip: noTrx ? writesSkip : safeSkip,
        async run(ctx) {
          const trx = W ? ctx.newTrxId() : usedTrx(ctx);
          const ex = await ctx.target.send('invite-member', method, change(inviteParams(ctx, trx)));
          return [one('INV-4', { exchange: ex }), one('ENV-1', { exchange: ex }), one('ENV-4', { exchange: ex })];
        },
      });
    }
    add({
      title: `INV-5 invite-member ${method}: a repeated trx_id creates no second transaction or charge`,
      clauses: ['INV-5'],
      area: 'invite',
      endpoint: 'invite-member',
      methods: [method],
      aliases: [],
      writes: 3,
      priority: 2,
      skip: writesSkip,
      async run(ctx) {
        const trx = ctx.newTrxId();
        const key = { api_key: ctx.target.apiKey };
        const saldoBefore = await ctx.target.send('saldo-user', method, key);
        const invite = await ctx.target.send('invite-member', method, inviteParams(ctx, trx));
        const saldoBetween = await ctx.target.send('saldo-user', method, key);
        const repeats: Exchange[] = [];
        for (const m of ['GET', 'POST'] as const)
          repeats.push(await ctx.target.send('invite-member', m, inviteParams(ctx, trx)));
        const saldoAfter = await ctx.target.send('saldo-user', method, key);
        const history = await ctx.target.send('history-transaksi', method, { ...key, q: trx, limit: 10 });
        return [
          one('INV-5', { invite, repeats, saldoBefore, saldoBetween, saldoAfter, history }),
          ...repeats.map((r) => one('ENV-1', { exchange: r })),
        ];
      },
    });
    add({
      title: `INV-6 invite-member ${method}: a successful invite is seen in cek-trx-id and history`,
      clauses: ['INV-6'],
      area: 'invite',
      endpoint: 'invite-member',
      methods: [method],
      aliases: [],
      writes: 1,
      priority: 1,
      skip: writesSkip,
      async run(ctx) {
        const trx = ctx.newTrxId();
        const key = { api_key: ctx.target.apiKey };
        const invite = await ctx.target.send('invite-member', method, inviteParams(ctx, trx));
        const lookup = await ctx.target.send('cek-trx-id', method, { ...key, trx_id: trx });
        const history = await ctx.target.send('history-transaksi', method, { ...key, q: trx, limit: 10 });
        return [one('INV-6', { invite, lookup, history }), one('INV-1', { exchange: invite })];
      },
    });
  }
}

/** Whether every request of a scenario is one that plain OpenAPI can call valid (see Scenario.plainOpenApi). */
export function isPlainOpenApi(s: Scenario): boolean {
  return s.plainOpenApi ?? s.aliases.length === 0;
}

/** Which writing scenarios fit under the cap, most important first; the rest are skipped with a reason. */
export function planWrites(scenarios: readonly Scenario[], maxInvites: number): { planned: number; over: Set<string> } {
  const writing = scenarios.filter((s) => s.writes > 0).sort((a, b) => a.priority - b.priority);
  let planned = 0;
  const over = new Set<string>();
  for (const s of writing) {
    if (planned + s.writes <= maxInvites) planned += s.writes;
    else over.add(s.title);
  }
  return { planned, over };
}

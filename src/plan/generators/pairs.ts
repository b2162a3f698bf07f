import covertable from 'covertable';
import type { ApiModel } from '../../openapi/load.js';
import { type ClauseId, type Endpoint, METHODS, type Method, type Params } from '../../openapi/types.js';
import type { InviteIntent } from '../../target/invite-ledger.js';
import { compareLimit, guardTrxIds, READ_ONLY_PRODUCT } from '../sampling.js';
import type { ScenarioContext } from '../scenario.js';
import { roleSeed, sampleOf } from './cases.js';
import { refusalDemand } from './demands.js';
import type { GeneratedCase } from './generated-case.js';
import { OPERATORS, type Operator } from './operators.js';
import { boundaryValues } from './values.js';

/**
 * Pairs, not only singles: many breaches need two conditions to meet (a value class and the method, two
 * parameters, a record and the name it is asked by, a request and the same one before it). The coverage phase
 * varies one condition at a time; this phase sends a covering array (covertable, every pair of levels of any two
 * factors at least once) over the conditions a request can carry: the method, the name the key goes under, each
 * parameter (absent, valid under each of its names, a few of its value classes, a record of every kind for an ID),
 * and what came before (the same request just before it). What an answer must be is the clauses' to say
 * (demands.ts): the first level that a clause says must be refused makes the case one that must be refused.
 */

/** One way a factor sets its condition of a request. */
export interface Level {
  /** Unique within its factor: `valid as nomor`, `prefix 07`, `by POST`. */
  label: string;
  /** The parameters it sets (none for `absent`). */
  set: Params;
  /** The methods that can carry it (all when absent). */
  methods?: readonly Method[];
  /** The clause that says a request with it must be refused. */
  refuse?: ClauseId;
  /** It names no record (TRX-2 judges the answer). */
  unknownId?: true;
}

/** One condition of a request, and its levels. */
export interface Factor {
  name: string;
  levels: Level[];
}

/** Value classes per parameter in the array: spread over its classes, the seed turning which ones. */
export const CLASSES_PER_PARAM = 3;
/** Records of every kind a parameter that names one takes as levels, at most. */
const KINDS_PER_PARAM = 4;
/** covertable's sorter seed: the same rows on every machine for the same factors. */
const COVERING_SEED = 'h2h';

/** Parameters the array varies: the key is a factor of its own (its name); an invite's guards stay fixed. */
function varied(endpoint: Endpoint, name: string): boolean {
  if (name === 'api_key') return false;
  return endpoint !== 'invite-member' || (name !== 'trx_id' && name !== 'product_code');
}

/** `k` of `items`, spread evenly, starting at an offset the run's seed turns. */
function spread<T>(items: readonly T[], k: number, turn: number): T[] {
  if (items.length <= k) return [...items];
  const step = items.length / k;
  return Array.from({ length: k }, (_, i) => items[(Math.floor(i * step) + turn) % items.length] as T);
}

/** The factor of one parameter: absent (when optional), valid under each name, a few classes, records by kind. */
function paramFactor(
  api: ApiModel,
  ctx: ScenarioContext,
  endpoint: Endpoint,
  param: { name: string; required: boolean },
  operators: readonly Operator[],
): Factor {
  const sample = sampleOf(ctx, endpoint, param.name);
  const levels: Level[] = param.required ? [] : [{ label: 'absent', set: {} }];
  if (sample !== undefined)
    for (const n of api.namesOf(endpoint, param.name)) levels.push({ label: `valid as ${n}`, set: { [n]: sample } });
  const classes = boundaryValues(api, endpoint, param.name, sample, roleSeed(ctx, endpoint, param.name), operators)
    .filter((v) => JSON.stringify(v.value) !== JSON.stringify(sample))
    .filter((v, i, all) => all.findIndex((w) => w.label === v.label) === i);
  for (const v of spread(classes, CLASSES_PER_PARAM, ctx.generation.seed)) {
    const refuse = refusalDemand(endpoint, param.name, v.value);
    levels.push({
      label: v.label,
      set: { [param.name]: v.value },
      ...(v.methods ? { methods: v.methods } : {}),
      ...(refuse ? { refuse } : {}),
      ...(endpoint === 'cek-trx-id' && v.unknownId ? { unknownId: true as const } : {}),
    });
  }
  if (endpoint === 'cek-trx-id' && param.name === 'trx_id')
    for (const [i, k] of (ctx.data.kinds ?? []).slice(0, KINDS_PER_PARAM).entries())
      levels.push({ label: `a record of kind ${i + 1}`, set: { trx_id: k.record.trx_id } });
  return { name: param.name, levels };
}

/** The factors of an endpoint's requests: the method, the key's name, each varied parameter, what came before. */
export function pairFactors(
  api: ApiModel,
  ctx: ScenarioContext,
  endpoint: Endpoint,
  operators: readonly Operator[] = OPERATORS,
): Factor[] {
  const key = ctx.target.apiKey;
  return [
    { name: 'method', levels: METHODS.map((m) => ({ label: `by ${m}`, set: {} })) },
    { name: 'key', levels: api.namesOf(endpoint, 'api_key').map((n) => ({ label: `key as ${n}`, set: { [n]: key } })) },
    ...api
      .operation(endpoint)
      .params.filter((p) => varied(endpoint, p.name))
      .map((p) => paramFactor(api, ctx, endpoint, p, operators)),
    // A read after the same read: a provider may answer a repeat from a cache of its own, or count it.
    ...(endpoint === 'invite-member'
      ? []
      : [
          {
            name: 'before',
            levels: [
              { label: 'first', set: {} },
              { label: 'after the same request', set: {} },
            ],
          },
        ]),
  ];
}

/** The method a row's method level names. */
const methodOf = (label: string | undefined): Method | undefined => METHODS.find((m) => label === `by ${m}`);

/**
 * Whether a (partial) row can go out: some method carries every level it holds (the method level, its own).
 *
 * covertable asks this of partial rows too. Reading a factor the row does not hold yet throws covertable's
 * NotReady, which defers the answer until the row is complete: an earlier version did so and spent 0.3 to 0.9
 * CPU-seconds on the history array (16,253 calls for 48 rows), on the critical path of a worker. Asked with `in`,
 * the answer comes from what the row holds (2,706 calls, 30 ms).
 */
function feasible(factors: readonly Factor[], row: Readonly<Record<string, string>>): boolean {
  return METHODS.some((m) =>
    factors.every((f) => {
      if (!(f.name in row)) return true;
      const level = f.levels.find((l) => l.label === row[f.name]);
      return !level || methodsFor(f, level).includes(m);
    }),
  );
}

/**
 * The covering arrays made in this process, by what makes them (the factors' names, levels and methods): the same
 * factors give the same rows (the seed is fixed), and a process that runs the gate many times (the tests, the
 * judge) made them anew each time, 2.6 % of a run's CPU. At most COVERING_KEPT, the oldest dropped.
 */
const covering = new Map<string, Record<string, string>[]>();
const COVERING_KEPT = 32;

/** The rows of the covering array: every pair of levels of any two factors that one request can carry. */
export function coveringRows(factors: readonly Factor[]): Record<string, string>[] {
  const key = JSON.stringify(factors.map((f) => [f.name, f.levels.map((l) => [l.label, l.methods ?? null])]));
  const kept = covering.get(key);
  if (kept) return kept.map((row) => ({ ...row }));
  const byName = Object.fromEntries(factors.map((f) => [f.name, f.levels.map((l) => l.label)]));
  const made = covertable.make(byName, {
    seed: COVERING_SEED,
    preFilter: (row: Record<string, string>) => feasible(factors, row),
  }) as Record<string, string>[];
  const rows = [...made, ...completion(factors, made)];
  if (covering.size >= COVERING_KEPT) covering.delete(covering.keys().next().value as string);
  covering.set(key, rows);
  return rows.map((row) => ({ ...row }));
}

/**
 * Rows for the pairs covertable left out. A candidate row its filter refuses counts as covered in covertable
 * (`consumeRow`), feasible pairs of it included: for some factors 1 to 16 of a few hundred pairs were never sent
 * (the test held one context only). Each pair left joins the first added row it fits; the factors a row still
 * lacks take their first level its methods carry.
 */
function completion(factors: readonly Factor[], rows: readonly Record<string, string>[]): Record<string, string>[] {
  const covered = coveredPairs(
    factors,
    rows.map((row) => ({ row })),
  );
  const added: Record<string, string>[] = [];
  for (const p of levelPairs(factors)) {
    if (covered.has(p.key)) continue;
    const fits = (row: Record<string, string>): boolean =>
      (row[p.a] ?? p.la) === p.la &&
      (row[p.b] ?? p.lb) === p.lb &&
      feasible(factors, { ...row, [p.a]: p.la, [p.b]: p.lb });
    const row = added.find(fits);
    if (row) Object.assign(row, { [p.a]: p.la, [p.b]: p.lb });
    else added.push({ [p.a]: p.la, [p.b]: p.lb });
  }
  for (const row of added)
    for (const f of factors) {
      if (row[f.name] !== undefined) continue;
      const level = f.levels.find((l) => feasible(factors, { ...row, [f.name]: l.label })) ?? f.levels[0];
      if (level) row[f.name] = level.label;
    }
  return added;
}

/** An invite's guards: a used trx_id and a product that cannot exist, unless it must be refused and writes are on. */
function inviteGuards(
  ctx: ScenarioContext,
  refuse: ClauseId | undefined,
  i: number,
): { set: Params; intent: InviteIntent } {
  if (ctx.target.allowWrites && refuse)
    return {
      set: { trx_id: ctx.newTrxId(), product_code: ctx.target.product ?? '' },
      intent: { expect: 'refusal', clause: refuse },
    };
  // Guarded twice (a used ID and a product that cannot exist): any used ID will do, one per invite side by side.
  const ids = guardTrxIds(ctx);
  return {
    set: { trx_id: ids[i % Math.max(1, ids.length)] ?? '', product_code: READ_ONLY_PRODUCT },
    intent: { expect: 'refusal', clause: 'used-trx' },
  };
}

/** The case of one row: its levels' parameters, the guards of an invite, what the clauses demand. */
function rowCase(
  ctx: ScenarioContext,
  endpoint: Endpoint,
  factors: readonly Factor[],
  row: Record<string, string>,
  i: number,
): GeneratedCase {
  const levels = factors.map((f) => f.levels.find((l) => l.label === row[f.name]) as Level);
  const refuse = levels.find((l) => l.refuse)?.refuse;
  const params: Params = endpoint === 'history-transaksi' ? { limit: compareLimit(ctx) } : {};
  // A limit level (absent included) replaces the compared page's.
  if (endpoint === 'history-transaksi' && row.limit !== undefined) delete params.limit;
  for (const l of levels) Object.assign(params, l.set);
  const guards = endpoint === 'invite-member' ? inviteGuards(ctx, refuse, i) : undefined;
  const c: GeneratedCase = {
    phase: 'pairs',
    endpoint,
    method: methodOf(row.method) ?? 'GET',
    label: `pairs: ${factors.map((f) => `${f.name} ${row[f.name]}`).join(' · ')}`,
    params: { ...params, ...guards?.set },
    row,
    ...(refuse ? { refuse } : {}),
    ...(levels.some((l) => l.unknownId) ? { unknownId: true as const } : {}),
    ...(guards ? { intent: guards.intent } : {}),
  };
  return c;
}

/**
 * The covering array's cases of an endpoint, in the order they go: every row once, then again each row whose
 * `before` level is the same request just before (its first copy went with the others).
 */
export function pairCases(
  api: ApiModel,
  ctx: ScenarioContext,
  endpoint: Endpoint,
  factors: readonly Factor[] = pairFactors(api, ctx, endpoint),
): GeneratedCase[] {
  const cases = coveringRows(factors).map((row, i) => rowCase(ctx, endpoint, factors, row, i));
  const again = cases.filter((c) => c.row?.before === 'after the same request');
  return [...cases, ...again.map((c) => ({ ...c, label: `${c.label} (sent again)` }))];
}

/** The methods that can carry a level: the method factor's own, or every method the level allows. */
function methodsFor(f: Factor, l: Level): Method[] {
  if (f.name === 'method') return METHODS.filter((m) => l.label === `by ${m}`);
  return METHODS.filter((m) => !l.methods || l.methods.includes(m));
}

/** One pair of levels of two factors that one request can carry, and its key (`f=l & g=m`). */
interface LevelPair {
  a: string;
  la: string;
  b: string;
  lb: string;
  key: string;
}

const pairKey = (a: string, la: string, b: string, lb: string): string => `${a}=${la} & ${b}=${lb}`;

/** Every pair of levels of two factors that one request can carry (by a method both allow). */
function levelPairs(factors: readonly Factor[]): LevelPair[] {
  const out: LevelPair[] = [];
  for (const [i, a] of factors.entries())
    for (const b of factors.slice(i + 1))
      for (const la of a.levels)
        for (const lb of b.levels)
          if (methodsFor(a, la).some((m) => methodsFor(b, lb).includes(m)))
            out.push({
              a: a.name,
              la: la.label,
              b: b.name,
              lb: lb.label,
              key: pairKey(a.name, la.label, b.name, lb.label),
            });
  return out;
}

/** Every pair of levels of two factors that one request can carry (by a method both allow), as `f=l & g=m`. */
export const feasiblePairs = (factors: readonly Factor[]): string[] => levelPairs(factors).map((p) => p.key);

/** The pairs of `factors` that the cases' rows hold. */
export function coveredPairs(factors: readonly Factor[], cases: readonly Pick<GeneratedCase, 'row'>[]): Set<string> {
  const out = new Set<string>();
  for (const c of cases) {
    const row = c.row ?? {};
    for (const [i, a] of factors.entries())
      for (const b of factors.slice(i + 1)) {
        const la = row[a.name];
        const lb = row[b.name];
        if (la !== undefined && lb !== undefined) out.add(pairKey(a.name, la, b.name, lb));
      }
  }
  return out;
}

import type { ApiModel } from '../../openapi/load.js';
import { forms } from '../../openapi/numbers.js';
import {
  type ClauseId,
  ENDPOINTS_READS_FIRST,
  type Endpoint,
  METHODS,
  type Method,
  type ParamInfo,
  type Params,
} from '../../openapi/types.js';
import type { InviteIntent } from '../../target/invite-ledger.js';
import { compareLimit, guardTrxIds, READ_ONLY_PRODUCT, sample, testNumber } from '../sampling.js';
import type { ScenarioContext } from '../scenario.js';
import { refusalDemand } from './demands.js';
import type { GeneratedCase } from './generated-case.js';
import { OPERATORS, type Operator, operatorValues } from './operators.js';
import type { RoleSeed, RoleValue } from './roles.js';
import { boundaryValues } from './values.js';

export type { GeneratedCase, Phase } from './generated-case.js';

/** The clauses a generated case is judged by, besides every clause one answer can break (ENV-1, ENV-4, ...). */
export function caseClauses(c: GeneratedCase): ClauseId[] {
  return [
    ...(c.refuse ? [c.refuse] : []),
    ...(c.wrongKey ? (['AUTH-1'] as const) : []),
    ...(c.expectedRecords?.length ? (['HIS-5'] as const) : []),
    ...(c.unknownId ? (['TRX-2'] as const) : []),
  ];
}

/**
 * A valid sample of a parameter, from the target's data and config: the suite's own sample, except where a
 * generated case must not spend (no fresh trx_id, the read-only product) or needs a value without a config.
 */
export function sampleOf(ctx: ScenarioContext, endpoint: Endpoint, name: string): unknown {
  switch (name) {
    case 'msisdn':
    case 'limit':
    case 'q':
    case 'date':
    case 'month':
    case 'year':
      return sample(ctx, endpoint, name);
    case 'kind':
      return ctx.target.kind ?? 'akrab';
    case 'trx_id':
      return endpoint === 'cek-trx-id' ? ctx.data.knownTrxId : 'T-1';
    case 'product_code':
      // Read-only, never the real product: a guard of a used trx_id alone may not hold (a provider may let a failed
      // transaction's ID be tried again), and nothing that could succeed goes out without writes.
      return ctx.target.allowWrites ? (ctx.target.product ?? READ_ONLY_PRODUCT) : READ_ONLY_PRODUCT;
    case 'name':
      return 'H2H';
    default:
      return undefined;
  }
}

/**
 * An invite that carries `value` for `param` under the name `sentAs`, in the form the money rules allow: with
 * writes, a value a clause says must be refused goes out with a fresh trx_id and the configured product
 * (counted only if accepted); anything else goes out guarded, so that no contract-keeping API can charge it:
 * a used trx_id and a product that cannot exist (only the product when trx_id is under test, only the used
 * trx_id when product_code is).
 */
function inviteCase(
  ctx: ScenarioContext,
  param: string,
  sentAs: string,
  value: unknown,
  i: number,
): Pick<GeneratedCase, 'params' | 'intent'> {
  const refuse = refusalDemand('invite-member', param, value);
  const live = ctx.target.allowWrites && refuse !== undefined && refuse !== 'AUTH-1';
  const base: Params = {
    api_key: ctx.target.apiKey,
    trx_id: live ? ctx.newTrxId() : (ctx.data.knownTrxId ?? ''),
    product_code: live ? (ctx.target.product ?? '') : READ_ONLY_PRODUCT,
    msisdn: testNumber(ctx),
    ...(ctx.target.kind ? { kind: ctx.target.kind } : {}),
  };
  // One used ID per invite side by side: any, guarded twice (a product that cannot exist too); one a lookup showed
  // SUCCESS when the ID is the only guard (product_code under test).
  const ids = guardTrxIds(ctx, param === 'product_code');
  if (!live && param !== 'trx_id' && ids.length) base.trx_id = ids[i % ids.length];
  if (param === 'product_code' && !live) {
    // Only the used trx_id guards this one: it must not repeat an earlier invite of that trx_id exactly, which a
    // provider may answer as an idempotent replay (ok true, nothing charged). The gate's own invites send the
    // number in 08-form and no name.
    base.msisdn = forms(testNumber(ctx)).f62;
    base.name = 'H2H guarded repeat';
  }
  delete base[param];
  const params = { ...base, ...(value === undefined ? {} : { [sentAs]: value }) };
  const intent: InviteIntent = live
    ? { expect: 'refusal', clause: refuse }
    : param === 'trx_id'
      ? { expect: 'refusal', clause: 'unknown-product' }
      : { expect: 'refusal', clause: 'used-trx' };
  return { params, intent };
}

/**
 * The coverage phase for one parameter, one of its names and one method: every boundary value of its schema
 * (boundaryValues), each judged by what the clauses say. Every value class goes out under every name: a provider
 * may check a value under one name and not under another.
 */
export function coverageCases(
  api: ApiModel,
  ctx: ScenarioContext,
  endpoint: Endpoint,
  param: string,
  sentAs: string,
  method: Method,
  operators: readonly Operator[] = OPERATORS,
): GeneratedCase[] {
  const seed = roleSeed(ctx, endpoint, param);
  const values = boundaryValues(api, endpoint, param, sampleOf(ctx, endpoint, param), seed, operators);
  return values
    .filter((v) => !v.methods || v.methods.includes(method))
    .map((v, i) => {
      const label = `${sentAs === param ? param : `${param} via ${sentAs}`}: ${v.label}`;
      const refuse = refusalDemand(endpoint, param, v.value);
      const coverage = { param, sentAs, valueClass: v.label };
      if (endpoint === 'invite-member')
        return {
          phase: 'coverage',
          endpoint,
          method,
          label,
          coverage,
          ...(refuse ? { refuse } : {}),
          ...inviteCase(ctx, param, sentAs, v.value, i),
        };
      const params: Params =
        endpoint === 'history-transaksi'
          ? {
              api_key: ctx.target.apiKey,
              ...(param === 'limit' ? {} : { limit: compareLimit(ctx) }),
              [sentAs]: v.value,
            }
          : { api_key: ctx.target.apiKey, [sentAs]: v.value };
      const unknownId = endpoint === 'cek-trx-id' && v.unknownId;
      return {
        phase: 'coverage',
        endpoint,
        method,
        label,
        params,
        coverage,
        ...(refuse ? { refuse } : {}),
        ...(unknownId ? { unknownId } : {}),
      };
    });
}

/**
 * The coverage phase of one parameter under all its names (the canonical name first): every value class by both
 * methods under the canonical name, and by one method under an alias, the methods taking turns from class to
 * class and from alias to alias. So every class goes under every name and by both methods, and each alias answer
 * has its canonical answer by the same method to pair with (ENV-3); only a provider that breaks a class under
 * one alias by one method alone goes unseen, for half the classes. A class that one method alone carries (a JSON
 * number) goes by that method.
 */
export function coverageByNames(
  api: ApiModel,
  ctx: ScenarioContext,
  endpoint: Endpoint,
  param: string,
  names: readonly string[],
  operators: readonly Operator[] = OPERATORS,
): GeneratedCase[] {
  return names.flatMap((name, k) => {
    const cases = METHODS.flatMap((method) => coverageCases(api, ctx, endpoint, param, name, method, operators));
    if (k === 0) return cases;
    const classes = [...new Set(cases.map((c) => c.coverage?.valueClass))];
    return classes.flatMap((cls, j) => {
      const same = cases.filter((c) => c.coverage?.valueClass === cls);
      const one = same.find((c) => c.method === METHODS[(j + k) % METHODS.length]) ?? same[0];
      return one ? [one] : [];
    });
  });
}

/**
 * What a parameter's role classes are made from (roles.ts): a text matched in history from a record's member
 * number (its digits are no product's); an identifier looked up from the known transaction, beside every ID the
 * account shows (a variant equal to one of them is no unknown ID); anything else from its sample.
 */
export function roleSeed(ctx: ScenarioContext, endpoint: Endpoint, param: string): RoleSeed {
  if (endpoint === 'history-transaksi' && param === 'q') return { value: ctx.data.record?.member_number ?? '' };
  if (endpoint === 'cek-trx-id' && param === 'trx_id')
    return {
      value: ctx.data.knownTrxId ?? '',
      existing: new Set((ctx.data.records ?? []).map((r) => r.trx_id ?? '')),
      others: (ctx.data.kinds ?? []).map((k) => k.record.trx_id ?? ''),
    };
  return { value: String(sampleOf(ctx, endpoint, param) ?? '') };
}

/** The names of the key, each tried alone with every near miss. */
const KEY_NAMES = ['api_key', 'key'] as const;

/**
 * The endpoints of the near misses and the random phase, in their order in the catalogue (the names of the key
 * take turns along it).
 */
export const GENERATED_ENDPOINTS = ENDPOINTS_READS_FIRST;

/** The key as a parameter, for the operators' rows (operators.ts): its role is what they read. */
const KEY_PARAM: ParamInfo = {
  name: 'api_key',
  role: 'secret',
  aliases: ['key'],
  required: true,
  description: 'the API key',
  schema: { type: 'string' },
};

/**
 * Near misses of the key: every operator's values for the secret (operators.ts: its role's classes, and every
 * other JSON type, which a key read loosely lets in as `true` or `0`): the one list of bad keys but the missing,
 * empty and plainly wrong ones of catalogue/auth.ts.
 */
function keyNearMisses(key: string): RoleValue[] {
  return operatorValues(KEY_PARAM, { value: key }, OPERATORS).filter((k) => k.value !== key);
}

/**
 * Keys a near miss of the real one that are text: derived from it, so they are secrets too (registered by the
 * caller).
 */
export function nearMissKeys(key: string): { label: string; value: string }[] {
  return keyNearMisses(key).flatMap((k) => (typeof k.value === 'string' ? [{ label: k.label, value: k.value }] : []));
}

/** Near misses of the key that are not text (a JSON true, a query operator object), with the methods that carry them. */
function nearMissValues(key: string): RoleValue[] {
  return keyNearMisses(key).filter((k) => typeof k.value !== 'string');
}

/**
 * AUTH-1 near misses on one endpoint and method, each under one name of the key (api_key or key, taking turns so
 * that every near miss goes under both names on every endpoint, one by GET and the other by POST): the real key
 * changed by one character, cut, extended, its case flipped, padded with whitespace, encoded twice; and both names
 * at once carrying two different wrong keys. None may give ok true or account data. (One name carrying the real
 * key beside a wrong one under the other is no AUTH-1 case: the caller holds the key. Those go to the
 * two-names scenarios, catalogue/conflicts.ts.)
 */
export function nearMissCases(ctx: ScenarioContext, endpoint: Endpoint, method: Method): GeneratedCase[] {
  const key = ctx.target.apiKey;
  const guards = guardTrxIds(ctx);
  const base = (i = 0): Params => {
    switch (endpoint) {
      case 'history-transaksi':
        return { limit: compareLimit(ctx) };
      case 'cek-trx-id':
        return { trx_id: ctx.data.knownTrxId };
      case 'saldo-user':
        return {};
      case 'invite-member':
        // With writes, as a real invite would go (a wrong key must be refused whatever else is right); without,
        // guarded twice, each of a batch by another used ID (a trx_id is never in flight twice).
        return {
          trx_id: ctx.target.allowWrites ? ctx.newTrxId() : (guards[i % Math.max(1, guards.length)] ?? ''),
          product_code: ctx.target.allowWrites ? (ctx.target.product ?? '') : READ_ONLY_PRODUCT,
          msisdn: testNumber(ctx),
          ...(ctx.target.kind ? { kind: ctx.target.kind } : {}),
        };
    }
  };
  const intent: InviteIntent = ctx.target.allowWrites
    ? { expect: 'refusal', clause: 'AUTH-1' }
    : { expect: 'refusal', clause: 'used-trx' };
  const misses = [...nearMissKeys(key), ...nearMissValues(key).filter((k) => !k.methods || k.methods.includes(method))];
  // Every near miss on every endpoint by both methods, each under one name, the names taking turns: each name
  // still carries every near miss on half of the endpoints and methods.
  const turn = (GENERATED_ENDPOINTS as readonly Endpoint[]).indexOf(endpoint) + METHODS.indexOf(method);
  const cases: GeneratedCase[] = misses.map((k, i) => {
    const name = KEY_NAMES[(i + turn) % KEY_NAMES.length] ?? 'api_key';
    return {
      phase: 'near-miss' as const,
      endpoint,
      method,
      label: `${name}: the real key, ${k.label}`,
      params: { ...base(i), [name]: k.value },
      wrongKey: true,
    };
  });
  const [one = 'x', other = 'y'] = misses.map((k) => k.value);
  cases.push({
    phase: 'near-miss',
    endpoint,
    method,
    label: 'api_key and key both wrong, each another near miss',
    params: { ...base(), api_key: one, key: other },
    wrongKey: true,
  });
  return endpoint === 'invite-member' ? cases.map((c) => ({ ...c, intent })) : cases;
}

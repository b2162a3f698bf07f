import type { ApiModel } from '../openapi/load.js';
import { sentValue, valueShape } from '../openapi/shape.js';
import type { Endpoint, Params } from '../openapi/types.js';
import { problemKind, REFUSAL_KINDS, type RefusalKind, type ValueWord, type Vocabulary } from '../reading/index.js';
import { limitsOf, type Reading } from './legal.js';

/** A parameter's value by its shape (valueShape): what a learned rule or word of a value is keyed by. */
export interface ShapedValue {
  param: string;
  shape: string;
}

/** What the mock knows of its own account when it tells what a request did wrong. */
export interface World {
  api: ApiModel;
  /** The account a key is, if any. */
  accountOf(key: string): string | undefined;
  /** Whether a trx_id is used on an account. */
  used(account: string, trxId: string): boolean;
  /** A product by code or name, in any letter case. */
  product(codeOrName: string): { kind: string } | undefined;
}

/** The word the provider gives a value of its shape, where it has one of its own (`value-words`). */
export function valueWordOf(vocabulary: Vocabulary, endpoint: Endpoint, value: ShapedValue): ValueWord | undefined {
  return vocabulary['value-words']?.[`${endpoint}.${value.param}`]?.[value.shape];
}

/**
 * A learned reading's checks, before the business rules: the refusal a request gets for what it did wrong, in the
 * order the provider checks, and the values it was seen to accept that the document's schema refuses.
 */
export class LearnedChecks {
  private readonly order: RefusalKind[];

  constructor(
    private readonly vocabulary: Vocabulary,
    private readonly reading: Reading,
  ) {
    // The simulator's own order of checks, with the provider's order among the kinds it was seen to check.
    const learned = vocabulary.precedence ?? [];
    let next = 0;
    this.order = REFUSAL_KINDS.map((k) => (learned.includes(k) ? (learned[next++] as RefusalKind) : k));
  }

  /**
   * The learned judgement of one value of a parameter, by its shape (a JSON array in a body, as sentValue gives
   * it, is `array`). A JSON number of a class the run never sent is judged as its digits were as a text: a provider
   * seen refusing `2147483648` refuses the number 2147483648 too, more often than not (the independent merak
   * does; the simulator's own rule, which takes any whole number, differed there).
   */
  private rule(endpoint: Endpoint, param: string, role: string, value: unknown): RefusalKind | 'accepted' | undefined {
    if (value === undefined) return undefined;
    const values = this.vocabulary.values?.[`${endpoint}.${param}`];
    const seen = values?.[valueShape(role, value)];
    if (seen !== undefined || typeof value !== 'number') return seen;
    return values?.[valueShape(role, String(value))];
  }

  /** Whether the provider was seen to accept a value the document's schema refuses (SimState.accepts). */
  accepts(api: ApiModel, endpoint: Endpoint, param: string, value: unknown): boolean {
    const role = api.operation(endpoint).params.find((p) => p.name === param)?.role ?? '';
    return this.rule(endpoint, param, role, value) === 'accepted';
  }

  /**
   * Before the business rules: the kind of refusal a request gets for what it did wrong, checked in the
   * provider's order (a value refused before any check first), with the value behind it (its shape may have a word
   * of its own); or its parameters as the provider reads them (an empty value it reads as none dropped, a month of
   * one digit padded, a boolean or an object it takes as its JSON text, a JSON array as the document reads it).
   */
  check(
    endpoint: Endpoint,
    raw: Params,
    world: World,
  ): { kind: RefusalKind; value?: ShapedValue } | { params: Params } {
    const op = world.api.operation(endpoint);
    const params: Params = { ...raw };
    for (const p of op.params)
      for (const name of [p.name, ...p.aliases]) {
        const v = params[name];
        // A JSON array in a body comes kept whole (readParams): where the provider was not seen to refuse one, it
        // is read as the document reads it (an array of one value, that value).
        if (Array.isArray(v) && v.length === 1 && Array.isArray(v[0])) {
          const rule = this.rule(endpoint, p.name, p.role, v[0]);
          if (rule === undefined || rule === 'accepted') params[name] = v[0];
          continue;
        }
        if (Array.isArray(v) || this.rule(endpoint, p.name, p.role, v) !== 'accepted') continue;
        if (v === '') delete params[name];
        else if (p.role === 'month' && (typeof v === 'string' || typeof v === 'number') && /^[0-9]$/.test(String(v)))
          params[name] = `0${v}`;
        // A boolean or an object the provider takes, as its JSON text (as the document reads a number).
        else if (typeof v === 'boolean' || (typeof v === 'object' && v !== null)) params[name] = JSON.stringify(v);
      }
    const folded = world.api.foldRequest(endpoint, this.oneNameEach(world.api, endpoint, params));
    const p = folded.params;
    const faults = new Set<RefusalKind>();
    // The value behind each fault of a value: its shape may have a word of its own (`value-words`).
    const values = new Map<RefusalKind, ShapedValue>();
    const role = (name: string): string => op.params.find((x) => x.name === name)?.role ?? '';
    const add = (kind: RefusalKind, param?: string, value?: unknown): void => {
      faults.add(kind);
      if (param !== undefined && value !== undefined && !values.has(kind))
        values.set(kind, { param, shape: valueShape(role(param), value) });
    };
    for (const q of folded.problems) {
      const sent = sentValue(folded.sentAs, params, q.param);
      const kind = problemKind(q, sent);
      if (q.code !== 'invalid' || q.param === 'api_key') {
        if (kind) add(kind, q.code === 'invalid' ? q.param : undefined, sent);
        continue;
      }
      const rule = this.rule(endpoint, q.param, role(q.param), sent);
      if (rule === 'accepted') continue;
      const learned = rule ?? kind;
      if (learned) add(learned, q.param, sent);
    }
    const bad = (param: string): boolean => folded.problems.some((q) => q.param === param);
    for (const name of Object.keys(p)) {
      if (bad(name)) continue;
      const sent = sentValue(folded.sentAs, params, name);
      const rule = this.rule(endpoint, name, role(name), sent);
      if (rule && rule !== 'accepted') add(rule, name, sent);
    }
    const limits = limitsOf(this.reading);
    if (endpoint === 'history-transaksi' && limits.refuse && !bad('limit') && Number(p.limit) > limits.maxLimit)
      faults.add('limit-over-maximum');
    const account = bad('api_key') ? undefined : world.accountOf(String(p.api_key));
    if (!bad('api_key') && account === undefined)
      add('wrong-key', 'api_key', sentValue(folded.sentAs, params, 'api_key'));
    if (endpoint === 'invite-member' && account !== undefined) {
      // Under `repeat: replay` the simulator's rules decide a used trx_id: the same invite again gets its first
      // answer, another one the refusal (in the provider's word): the more specific fact wins over the kind's.
      if (
        this.reading.repeat !== 'replay' &&
        !bad('trx_id') &&
        p.trx_id !== undefined &&
        world.used(account, String(p.trx_id))
      )
        faults.add('used-trx-id');
      const product =
        bad('product_code') || p.product_code === undefined ? undefined : world.product(String(p.product_code));
      if (!bad('product_code') && p.product_code !== undefined && !product) faults.add('unknown-product');
      if (product && !bad('kind') && p.kind !== undefined && p.kind !== product.kind) faults.add('kind-mismatch');
    }
    // A value the provider refuses before any other check (its JSON type, as it reads the request) goes first.
    const early = [...values].filter(([, v]) => valueWordOf(this.vocabulary, endpoint, v)?.first).map(([k]) => k);
    const first = this.order.find((k) => early.includes(k)) ?? this.order.find((k) => faults.has(k));
    if (!first) return { params };
    const value = values.get(first);
    return value ? { kind: first, value } : { kind: first };
  }

  /** Two names of one parameter with different values: refused (the fold finds it), or one of them used. */
  private oneNameEach(api: ApiModel, endpoint: Endpoint, raw: Params): Params {
    if (this.reading.conflict === 'refuse') return raw;
    const out: Params = { ...raw };
    for (const param of api.operation(endpoint).params) {
      const names = [param.name, ...param.aliases].filter((n) => Object.hasOwn(raw, n) && raw[n] !== undefined);
      if (names.length < 2 || new Set(names.map((n) => JSON.stringify(raw[n]))).size < 2) continue;
      const keep = this.reading.conflict === 'canonical' ? names[0] : names.find((n) => n !== param.name);
      for (const n of names) if (n !== keep) delete out[n];
    }
    return out;
  }
}

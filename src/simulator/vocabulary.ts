import { createHash } from 'node:crypto';
import type { ApiModel } from '../openapi/load.js';
import { to08, to62 } from '../openapi/numbers.js';
import { phoneForm, sentValue, valueShape } from '../openapi/shape.js';
import type { Endpoint, Params } from '../openapi/types.js';
import {
  conform,
  type EndpointRefusal,
  problemKind,
  REFUSAL_KINDS,
  type RefusalKind,
  type ValueWord,
  type Vocabulary,
} from '../reading/index.js';
import { type Answer, type RefusalStatus, refuse } from './answer.js';
import type { Fixture } from './fixtures.js';
import { limitsOf, type Reading } from './legal.js';

// A learned reading served (issue 27): the provider's words, codes, fields, forms, products and checks in place
// of the simulator's own wherever the reading file has a value; the simulator's own everywhere else.

/** The kind of each of the simulator's refusal statuses (INVALID_API_KEY is a missing or a wrong key). */
const KIND_OF_STATUS: Partial<Record<RefusalStatus, RefusalKind>> = {
  INVALID_API_KEY: 'wrong-key',
  MISSING_PARAMETER: 'missing-parameter',
  CONFLICTING_PARAMETER: 'conflict',
  INVALID_TRX_ID: 'malformed-trx-id',
  INVALID_PRODUCT_CODE: 'malformed-product',
  INVALID_MSISDN: 'malformed-msisdn',
  INVALID_NAME: 'malformed-name',
  INVALID_KIND: 'malformed-kind',
  INVALID_LIMIT: 'malformed-limit',
  INVALID_Q: 'malformed-q',
  INVALID_DATE: 'malformed-date',
  INVALID_MONTH: 'malformed-month',
  INVALID_YEAR: 'malformed-year',
  MALFORMED_JSON: 'not-json',
  UNSUPPORTED_MEDIA_TYPE: 'not-json',
  UNKNOWN_PRODUCT: 'unknown-product',
  KIND_MISMATCH: 'kind-mismatch',
  DUPLICATE_TRX_ID: 'used-trx-id',
  INSUFFICIENT_BALANCE: 'balance-too-low',
  NO_FREE_SLOT: 'no-free-slot',
  TRX_NOT_FOUND: 'unknown-transaction',
  NOT_FOUND: 'unknown-path',
  METHOD_NOT_ALLOWED: 'other-method',
  RATE_LIMITED: 'rate-limited',
};

/** The simulator's own status for a kind, for a kind the reading has no word for. */
function statusOfKind(kind: RefusalKind): RefusalStatus {
  if (kind === 'missing-key') return 'INVALID_API_KEY';
  if (kind === 'limit-over-maximum') return 'INVALID_LIMIT';
  const found = (Object.entries(KIND_OF_STATUS) as [RefusalStatus, RefusalKind][]).find(([, k]) => k === kind);
  return found?.[0] ?? 'INVALID_PARAMETER';
}

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

/**
 * The `h2h-source` of an answer of the simulator's own reading: its values follow openapi.yaml, its words, codes,
 * fields and forms are the simulator's defaults (src/simulator/legal.ts).
 */
export const OWN_SOURCE = 'values=openapi; words=default; fields=default; forms=default';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const join = (prefix: string, key: string): string => (prefix ? `${prefix}.${key}` : key);

/** A number in a form: 62, 08 or +62. */
function inForm(number: string, form: string): string {
  if (form === '08') return to08(number);
  if (form === '+62') return `+${to62(number)}`;
  return to62(number);
}

/** A stable pick among counted choices: the same key always picks the same, in the choices' shares. */
function pick(shares: Record<string, number | undefined>, key: string): string | undefined {
  const list = Object.entries(shares).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  const total = list.reduce((a, [, n]) => a + n, 0);
  if (!total) return undefined;
  const at = createHash('sha256').update(key).digest().readUInt32BE(0) % total;
  let sum = 0;
  for (const [form, n] of list) {
    sum += n;
    if (at < sum) return form;
  }
  return list.at(-1)?.[0];
}

/**
 * A learned reading, ready to serve: the refusal a request gets for what it did wrong (in the order the provider
 * checks), its refusals and successes in the provider's words, fields and forms.
 */
export class ServedVocabulary {
  private readonly order: RefusalKind[];

  constructor(
    readonly vocabulary: Vocabulary,
    private readonly reading: Reading,
    /** How a recorded account's numbers showed, by trx_id and field path (fixture `forms`). */
    private readonly shown: Fixture['forms'] = {},
  ) {
    // The simulator's own order of checks, with the provider's order among the kinds it was seen to check.
    const learned = vocabulary.precedence ?? [];
    let next = 0;
    this.order = REFUSAL_KINDS.map((k) => (learned.includes(k) ? (learned[next++] as RefusalKind) : k));
  }

  /**
   * The learned judgement of one value of a parameter, by its shape (a JSON array in a body, as sentValue gives
   * it, is `array`).
   */
  private rule(endpoint: Endpoint, param: string, role: string, value: unknown): RefusalKind | 'accepted' | undefined {
    if (value === undefined) return undefined;
    return this.vocabulary.values?.[`${endpoint}.${param}`]?.[valueShape(role, value)];
  }

  /** The word the provider gives a value of its shape, where it has one of its own (`value-words`). */
  private valueWord(endpoint: Endpoint, value: ShapedValue): ValueWord | undefined {
    return this.vocabulary['value-words']?.[`${endpoint}.${value.param}`]?.[value.shape];
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
    const early = [...values].filter(([, v]) => this.valueWord(endpoint, v)?.first).map(([k]) => k);
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

  /** The kind of a refusal the simulator's rules gave. */
  kindOf(answer: Answer, params: Params): RefusalKind | undefined {
    const status = String(answer.body.status) as RefusalStatus;
    if (status === 'INVALID_API_KEY' && (params.api_key ?? params.key ?? '') === '') return 'missing-key';
    return KIND_OF_STATUS[status];
  }

  /**
   * The provider's refusal of a kind (for a value of a shape it words apart, that shape's; on an endpoint that
   * words it otherwise, that one's), or undefined.
   */
  refusal(
    kind: RefusalKind,
    endpoint?: Endpoint,
    value?: ShapedValue,
  ): { answer: Answer; entry: EndpointRefusal } | undefined {
    // A body that is JSON but no object, where the file learned no word for it apart: the word of one not JSON.
    const learned =
      this.vocabulary.refusals?.[kind] ?? (kind === 'not-object' ? this.vocabulary.refusals?.['not-json'] : undefined);
    const ofShape = endpoint && value ? this.valueWord(endpoint, value) : undefined;
    const entry = ofShape ?? (endpoint ? learned?.endpoints?.[endpoint] : undefined) ?? learned;
    if (!entry) return undefined;
    const body: Record<string, unknown> = {};
    conform(body, entry.fields);
    body.ok = false;
    body.status = entry.status;
    if (Object.hasOwn(entry.fields, 'message')) body.message = entry.message ?? '';
    return { answer: { http: entry.http, body }, entry };
  }

  /**
   * Where each part of an answer came from, for the `h2h-source` header and the log: `learned` with how many
   * answers showed it and the run that learned it, `openapi` (values the document's schema gives), or `default`
   * (the simulator's own). `words=learned(wrong-key, seen 12, run 2026-11-26T04:00:00Z)`.
   */
  sourceOf(part: { refusal?: RefusalKind; entry?: EndpointRefusal; success?: Endpoint }): string {
    const run = this.vocabulary.learned?.at ?? 'unknown run';
    const learned = (what: string, seen: number | undefined): string =>
      `learned(${what}${seen === undefined ? '' : `, seen ${seen}`}, run ${run})`;
    const parts = ['values=openapi'];
    if (part.refusal)
      parts.push(`words=${part.entry ? learned(part.refusal, part.entry.seen) : `default(${part.refusal})`}`);
    const success = part.success ? this.vocabulary.successes?.[part.success] : undefined;
    if (part.success) parts.push(`fields=${success ? learned(part.success, success.seen) : 'default'}`);
    else if (part.entry) parts.push(`fields=${learned(part.refusal ?? 'refusal', part.entry.seen)}`);
    else parts.push('fields=default');
    const forms = part.success ? this.vocabulary.forms?.[part.success] : undefined;
    if (part.success) parts.push(`forms=${forms ? learned('number forms', undefined) : 'default'}`);
    return parts.join('; ');
  }

  /** The simulator's own refusal of a kind, where the reading has no word for it. */
  ownRefusal(kind: RefusalKind): Answer {
    return refuse(statusOfKind(kind), `Refused: ${kind}.`);
  }

  /**
   * A successful answer in the provider's fields and forms: the envelope's fields as learned, each history record's
   * as the provider's own invites' or the others', every phone number in a form of the learned shares (or as the
   * recorded account showed it).
   */
  success(
    api: ApiModel,
    answer: Answer,
    endpoint: Endpoint,
    own: ReadonlyMap<string, Params>,
    sent: Params,
  ): { answer: Answer; learned: boolean } {
    const learned = this.vocabulary.successes?.[endpoint];
    const body = structuredClone(answer.body);
    const history = endpoint === 'history-transaksi' && Array.isArray(body.data);
    if (learned) {
      const { sentAs } = api.foldRequest(endpoint, sent);
      const echo = (param: string): unknown => sentValue(sentAs, sent, param);
      conform(body, learned.fields, '', history ? 'data' : undefined, echo);
      if (history && Array.isArray(body.data))
        for (const rec of body.data) {
          if (!isObject(rec)) continue;
          const invite = own.get(String(rec.trx_id));
          const fields =
            (invite ? learned.records?.own : learned.records?.other) ?? learned.records?.other ?? learned.records?.own;
          // A field of the run's own invites' records that carries a parameter of the invite back: that invite's.
          const sentAs = invite ? api.foldRequest('invite-member', invite).sentAs : undefined;
          const carried = (param: string): unknown => (invite && sentAs ? sentValue(sentAs, invite, param) : undefined);
          if (fields) conform(rec, fields, '', undefined, carried);
        }
    }
    const forms = this.vocabulary.forms?.[endpoint];
    // A value the request carried back stays as it was sent.
    const echoed = new Set(
      Object.entries(learned?.fields ?? {})
        .filter(([, f]) => f.echo)
        .map(([p]) => p),
    );
    if (forms) this.reform(body, forms, own, endpoint, echoed);
    return { answer: { ...answer, body }, learned: learned !== undefined };
  }

  /** Every phone number of a body in the form the learned shares (or the recorded account) give its field. */
  private reform(
    body: Record<string, unknown>,
    forms: Record<string, Record<string, number | undefined>>,
    own: ReadonlyMap<string, Params>,
    endpoint: Endpoint,
    echoed: ReadonlySet<string>,
  ): void {
    const walk = (v: unknown, path: string, trx: string): unknown => {
      if (typeof v === 'string' && phoneForm(v) && !echoed.has(path)) {
        const mine = own.has(trx);
        const shares = (mine ? forms[`${path} (own invites)`] : undefined) ?? forms[path];
        const recorded = this.shown?.[trx]?.[`${endpoint} ${path}`];
        const form = recorded ?? (shares ? pick(shares, `${trx}|${path}|${v}`) : undefined);
        return form ? inForm(v, form) : v;
      }
      if (Array.isArray(v)) return v.map((x) => walk(x, `${path}[]`, trx));
      if (isObject(v)) {
        const id = typeof v.trx_id === 'string' ? v.trx_id : trx;
        for (const [k, x] of Object.entries(v)) v[k] = walk(x, join(path, k), id);
        return v;
      }
      return v;
    };
    walk(body, '', typeof body.trx_id === 'string' ? body.trx_id : '');
  }
}

/** The fixture with the learned products added (a client's own product is then one the mock sells). */
export function withProducts(fixture: Fixture, vocabulary: Vocabulary | undefined): Fixture {
  const learned = Object.entries(vocabulary?.products ?? {});
  if (!learned.length) return fixture;
  const known = new Set(fixture.products.map((p) => p.code.toLowerCase()));
  const cheapest = Math.min(...fixture.products.map((p) => p.price));
  return {
    ...fixture,
    products: [
      ...fixture.products,
      ...learned
        .filter(([code]) => !known.has(code.toLowerCase()))
        .map(([code, p]) => ({ code, name: code, kind: p.kind, price: Math.max(1, Math.round(p.price ?? cheapest)) })),
    ],
  };
}

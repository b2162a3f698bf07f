import { createHash } from 'node:crypto';
import type { ApiModel } from '../openapi/load.js';
import { to08, to62 } from '../openapi/numbers.js';
import { phoneForm, sentValue } from '../openapi/shape.js';
import type { Endpoint, Params } from '../openapi/types.js';
import { conform, type EndpointRefusal, type RefusalKind, type Vocabulary } from '../reading/index.js';
import { type Answer, type RefusalStatus, refuse } from './answer.js';
import type { Fixture } from './fixtures.js';
import { LearnedChecks, type ShapedValue, valueWordOf } from './learned-checks.js';
import type { Reading } from './legal.js';

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
 * A learned reading, ready to serve: its checks (LearnedChecks: the refusal a request gets for what it did wrong, in
 * the order the provider checks), its refusals and successes in the provider's words, fields and forms.
 */
export class ServedVocabulary {
  /** Its checks, before the business rules. */
  readonly checks: LearnedChecks;

  constructor(
    readonly vocabulary: Vocabulary,
    reading: Reading,
    /** How a recorded account's numbers showed, by trx_id and field path (fixture `forms`). */
    private readonly shown: Fixture['forms'] = {},
  ) {
    this.checks = new LearnedChecks(vocabulary, reading);
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
    const ofShape = endpoint && value ? valueWordOf(this.vocabulary, endpoint, value) : undefined;
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

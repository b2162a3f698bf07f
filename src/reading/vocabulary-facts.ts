import { bodyOf, records } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { fieldTypes, phoneForm, sentValue, valueShape } from '../openapi/shape.js';
import type { Exchange } from '../openapi/types.js';
import { isJsonObject } from '../shared/json.js';
import { problemKind, type RefusalKind } from './file.js';
import type { ReadingFact } from './types.js';

/**
 * The provider's vocabulary as one answer shows it (issue 27): for a refusal, what the request did wrong (its
 * faults, as refusal kinds) beside the HTTP status, the status word, the message and the fields it came with; for
 * a success, its fields at every level (undocumented ones with an example), the forms of its phone numbers and,
 * for an invite, the product; for every parameter whose value alone could explain the outcome, the value's shape
 * and the outcome. Facts of one scenario, summed over the run by learn-reading.ts.
 */

/** What the run knows when it tells what a request did wrong. */
export interface FaultContext {
  apiKey: string;
  /** Transaction IDs that exist on the account: its history as the run read it, and the run's own invites. */
  knownTrxIds: ReadonlySet<string>;
  /** The run's own invites (their records are learned apart from the account's others). */
  ownTrxIds: ReadonlySet<string>;
  /**
   * What the run's own invites sent, by trx_id: each parameter's value under its canonical name, the key left out
   * (a field of their records that carries one back is learned).
   */
  ownInvites?: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** The configured product and kind; a product other than it is one the run does not know. */
  product?: string;
  kind?: string;
  /** The price of one invite, as the balance showed it. */
  price?: number;
}

/** What a request did wrong, as refusal kinds: none for a request a contract-keeping API may carry out. */
export function requestFaults(api: ApiModel, ex: Exchange, ctx: FaultContext): RefusalKind[] {
  // A body sent as it is: one that is no JSON is `not-json`, JSON that is no object `not-object`. An empty one, or
  // an object sent as it is (64 levels deep, say), tells no kind: a provider may read it as no parameters, or
  // refuse it as a body.
  if (ex.sentBody) {
    const json = jsonOf(ex.sentBody.text);
    if (ex.sentBody.text.trim() === '' || isJsonObject(json)) return [];
    return json === NOT_JSON ? ['not-json'] : ['not-object'];
  }
  const folded = api.foldRequest(ex.endpoint, ex.params);
  const p = folded.params;
  const out = new Set<RefusalKind>();
  for (const q of folded.problems) {
    const kind = problemKind(q, sentValue(folded.sentAs, ex.params, q.param));
    if (kind) out.add(kind);
  }
  const bad = (param: string): boolean => folded.problems.some((q) => q.param === param);
  if (!bad('api_key') && typeof p.api_key === 'string' && p.api_key !== ctx.apiKey) out.add('wrong-key');
  if (ex.endpoint === 'invite-member') {
    if (!bad('trx_id') && p.trx_id !== undefined && ctx.knownTrxIds.has(String(p.trx_id))) out.add('used-trx-id');
    const product = String(p.product_code ?? '').toLowerCase();
    const known = ctx.product !== undefined && product === ctx.product.toLowerCase();
    if (!bad('product_code') && p.product_code !== undefined && !known) out.add('unknown-product');
    if (known && !bad('kind') && p.kind !== undefined && ctx.kind !== undefined && p.kind !== ctx.kind)
      out.add('kind-mismatch');
  }
  if (
    ex.endpoint === 'cek-trx-id' &&
    !bad('trx_id') &&
    p.trx_id !== undefined &&
    !ctx.knownTrxIds.has(String(p.trx_id))
  )
    out.add('unknown-transaction');
  return [...out].sort();
}

const NOT_JSON = Symbol('not JSON');

/** A text's JSON value, or NOT_JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** `HTTP 403 invalid_key`: the outcome of an answer, as a refusal's word and code, or `ok`. */
export function outcomeOf(ex: Exchange): string {
  const body = bodyOf(ex);
  if (!body) return `${ex.httpStatus} (not JSON)`;
  return body.ok === true ? 'ok' : `${ex.httpStatus} ${String(body.status)}`;
}

/** `path: type|type` of every field, sorted: the signature of a level. */
export function fieldSignature(value: unknown, skip?: (path: string) => boolean): string[] {
  return [...fieldTypes(value)]
    .filter(([path]) => !skip?.(path))
    .map(([path, types]) => `${path}: ${[...types].sort().join('|')}`)
    .sort();
}

/** A phone number of the same form and length, in place of one a provider sent: no real number enters the file. */
export function examplePhone(v: string): string {
  const form = phoneForm(v);
  const head = form === '+62' ? '+628' : form === '62' ? '628' : '08';
  return `${head}${'1'.repeat(Math.max(0, v.length - head.length))}`;
}

/**
 * Example values of the undocumented fields of an answer (`undocumented(path)`): leaves and empty containers,
 * phone numbers replaced by one of their form, long texts cut.
 */
export function examplesOf(value: unknown, undocumented: (path: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      if (path && undocumented(path) && v.length === 0) out[path] = [];
      for (const x of v.slice(0, 1)) walk(x, `${path}[]`);
      return;
    }
    if (v && typeof v === 'object') {
      if (path && undocumented(path) && Object.keys(v).length === 0) out[path] = {};
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
      return;
    }
    if (!path || !undocumented(path) || Object.hasOwn(out, path)) return;
    out[path] = typeof v === 'string' ? (phoneForm(v) ? examplePhone(v) : v.slice(0, 200)) : v;
  };
  walk(value, '');
  return out;
}

/** Every leaf of a value by its path (the first element of an array stands for all). */
function flatLeaves(value: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      if (v.length) walk(v[0], `${path}[]`);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    else if (!out.has(path)) out.set(path, v);
  };
  walk(value, '');
  return out;
}

/** The undocumented fields of an answer, as paths: drift's, and everything under them. */
function undocumentedPaths(api: ApiModel, ex: Exchange): (path: string) => boolean {
  const roots = api
    .drift(ex.endpoint, ex.body, { httpStatus: ex.httpStatus })
    .filter((d) => d.kind === 'field')
    .map((d) => d.path.replace(/^\$\./, ''));
  return (path) => roots.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[]`));
}

const throttledOrBusy = (ex: Exchange): boolean => ex.httpStatus === 429 || ex.httpStatus === 503;

/** A fact of the vocabulary, before its evidence is attached (once per value, by scenarioFacts). */
export type VocabularyFact = Omit<ReadingFact, 'evidence'>;

/** One fact, counted: the counts of one value add up over the run. */
const fact = (knob: string, value: unknown, count = 1, detail?: unknown): VocabularyFact => ({
  point: 'reading',
  knob,
  value: JSON.stringify(value),
  count,
  ...(detail !== undefined ? { detail: detail as Record<string, unknown> } : {}),
});

/** A refusal's fact: what the request did wrong beside the answer's code, word, fields, message and examples. */
export function refusedFact(api: ApiModel, ex: Exchange, faults: readonly string[]): VocabularyFact | undefined {
  const body = bodyOf(ex);
  if (!body || body.ok === true) return undefined;
  // A fault of an empty value tells no kind: a provider may read it as missing or as malformed.
  const empty = Object.values(ex.params).some((v) => v === '');
  return fact(
    'vocabulary:refused',
    [faults, ex.httpStatus, String(body.status), fieldSignature(body), empty, ex.endpoint],
    1,
    {
      message: typeof body.message === 'string' ? body.message.slice(0, 200) : undefined,
      examples: examplesOf(body, undocumentedPaths(api, ex)),
    },
  );
}

/**
 * The offsets from UTC (minutes, [from, to)) at which a record of the run's own invite, read now, is dated `date`:
 * the invite was made moments ago, so the provider's clock read `date` then (undefined for no YYYY-MM-DD date).
 */
export function dayOffsets(date: unknown, now = Date.now()): [number, number] | undefined {
  const start =
    typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(start)) return undefined;
  return [Math.ceil((start - now) / 60_000), Math.floor((start + 86_400_000 - now) / 60_000)];
}

/** Whether a field's value carries a parameter's back: `same`, `null` (for a parameter not sent) or `other`. */
function echoVerdict(v: unknown, sent: unknown): 'same' | 'null' | 'other' {
  if (sent !== undefined && v !== undefined && v !== null && String(v) === String(sent)) return 'same';
  return (sent === undefined || sent === '') && v === null ? 'null' : 'other';
}

/**
 * The undocumented fields of a record of the run's own invite against what that invite sent: a record may carry
 * one of its parameters back (the name it was sent with, say), to be learned and served as such.
 */
function recordEchoes(
  api: ApiModel,
  rec: Record<string, unknown>,
  invite: Readonly<Record<string, unknown>>,
  undocumented: (path: string) => boolean,
): VocabularyFact[] {
  const out: VocabularyFact[] = [];
  const leaves = flatLeaves(rec);
  for (const param of api.operation('invite-member').params) {
    if (param.role === 'secret') continue;
    for (const [path, v] of leaves)
      if (undocumented(path))
        out.push(fact('vocabulary:record-echo', [path, param.name, echoVerdict(v, invite[param.name])]));
  }
  return out;
}

/**
 * Each parameter's value, by its shape, beside the outcome and what else the request did wrong: the learner tells
 * from the refusal's word whose value it was (learn-vocabulary.ts), and whether the document's schema judged the value
 * otherwise. A key only when it is no string, by its JSON type alone (a provider may word it apart).
 */
function valueFacts(api: ApiModel, ex: Exchange, faults: readonly RefusalKind[]): VocabularyFact[] {
  const folded = api.foldRequest(ex.endpoint, ex.params);
  const outcome = outcomeOf(ex);
  const out: VocabularyFact[] = [];
  for (const param of api.operation(ex.endpoint).params) {
    const v = sentValue(folded.sentAs, ex.params, param.name, ex.method);
    if (v === undefined || (param.role === 'secret' && typeof v === 'string')) continue;
    const problems = folded.problems.filter((q) => q.param === param.name);
    const flagged = problems[0]?.code ?? '';
    const mine = new Set(problems.map((q) => problemKind(q, sentValue(folded.sentAs, ex.params, q.param))));
    // A key the document takes is still the key's own fault when it is not the run's.
    if (param.role === 'secret') for (const k of ['wrong-key', 'missing-key'] as const) mine.add(k);
    const others = faults.filter((k) => !mine.has(k));
    // A JSON array in a body is one value of its own type (the fold reads one of one element as that element).
    const raw = ex.params[folded.sentAs[param.name]?.[0] ?? ''];
    const shape = ex.method === 'POST' && Array.isArray(raw) ? 'array' : valueShape(param.role, v);
    out.push(fact('vocabulary:value', [ex.endpoint, param.name, shape, outcome, flagged, others]));
  }
  return out;
}

/** What one answer shows of the provider's vocabulary. */
export function vocabularyFacts(api: ApiModel, ex: Exchange, ctx: FaultContext): VocabularyFact[] {
  const body = bodyOf(ex);
  if (!body) return [];
  const out: VocabularyFact[] = [];
  const undocumented = undocumentedPaths(api, ex);
  const faults = requestFaults(api, ex, ctx);
  if (body.ok !== true) {
    const refused = refusedFact(api, ex, throttledOrBusy(ex) ? ['rate-limited'] : faults);
    if (refused) out.push(refused);
    if (throttledOrBusy(ex)) return out;
  }
  out.push(...valueFacts(api, ex, faults));
  if (body.ok !== true) return out;
  const folded = api.foldRequest(ex.endpoint, ex.params);
  // A success: its envelope's fields (history records apart), each record's, and the forms of its numbers.
  const recs = ex.endpoint === 'history-transaksi' ? records(ex) : undefined;
  const inRecords = (path: string): boolean => recs !== undefined && path.startsWith('data[]');
  out.push(
    fact(
      'vocabulary:success',
      [ex.endpoint, fieldSignature(body, inRecords)],
      1,
      examplesOf(body, (path) => undocumented(path) && !inRecords(path)),
    ),
  );
  // An undocumented field that carries a parameter's value back (a filter echoed in `meta`, the name in `detail`).
  const leaves = examplesOf(body, (path) => undocumented(path) && !inRecords(path));
  const raw = flatLeaves(body);
  for (const param of api.operation(ex.endpoint).params) {
    if (param.role === 'secret') continue;
    const sent = sentValue(folded.sentAs, ex.params, param.name, ex.method);
    for (const path of Object.keys(leaves)) {
      out.push(fact('vocabulary:echo', [ex.endpoint, path, param.name, echoVerdict(raw.get(path), sent)]));
    }
  }
  const forms = new Map<string, number>();
  const countForms = (value: unknown, own: boolean, prefix: string): void => {
    const walk = (v: unknown, path: string): void => {
      const form = phoneForm(v);
      if (form) {
        const key = JSON.stringify([ex.endpoint, path, own ? 'own' : 'other', form]);
        forms.set(key, (forms.get(key) ?? 0) + 1);
      }
      if (Array.isArray(v)) for (const x of v) walk(x, `${path}[]`);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    };
    walk(value, prefix);
  };
  if (recs) {
    const sigs = new Map<string, { count: number; rec: Record<string, unknown> }>();
    for (const r of recs) {
      const own = ctx.ownTrxIds.has(String(r.trx_id));
      const day = own ? dayOffsets(r.date) : undefined;
      if (day) out.push(fact('vocabulary:day', day));
      const invite = own ? ctx.ownInvites?.get(String(r.trx_id)) : undefined;
      if (invite) out.push(...recordEchoes(api, r, invite, (path) => undocumented(`data[].${path}`)));
      const key = JSON.stringify([own ? 'own' : 'other', fieldSignature(r)]);
      const seen = sigs.get(key);
      if (seen) seen.count++;
      else sigs.set(key, { count: 1, rec: r });
      countForms(r, own, 'data[]');
    }
    for (const [key, { count, rec }] of sigs)
      out.push({
        point: 'reading',
        knob: 'vocabulary:record',
        value: key,
        count,
        detail: examplesOf(rec, (path) => undocumented(`data[].${path}`)),
      });
    countForms({ ...body, data: undefined }, false, '');
  } else countForms(body, false, '');
  for (const [key, count] of forms) out.push({ point: 'reading', knob: 'vocabulary:form', value: key, count });
  if (ex.endpoint === 'invite-member' && ctx.product !== undefined) {
    const code = String(folded.params.product_code ?? '');
    if (code.toLowerCase() === ctx.product.toLowerCase())
      out.push(
        fact('vocabulary:product', [ctx.product, ctx.kind ?? ''], 1, {
          ...(ctx.price !== undefined ? { price: ctx.price } : {}),
        }),
      );
  }
  return out;
}

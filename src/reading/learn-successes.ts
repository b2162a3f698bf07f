import { ENDPOINTS, type Endpoint, isEndpoint } from '../openapi/types.js';
import type { LearnedFields, Vocabulary } from './file.js';
import { type Counted, evidenceOf, factsOf, fieldsFrom } from './learn-tally.js';
import type { ReadingFact } from './types.js';

/**
 * What the provider's successful answers show: each endpoint's fields at every level (history records apart, the
 * run's own invites' and the others'), the fields that carry a parameter back, the forms of its phone numbers, the
 * products carried out, and its day.
 */

/** The fields of history records, the run's own or the others', or undefined when none came. */
function historyRecordFields(
  recs: readonly Counted<[string, string[]]>[],
  own: 'own' | 'other',
): LearnedFields | undefined {
  const list = recs.filter((r) => r.value[0] === own);
  return list.length
    ? fieldsFrom(list.map((r) => ({ sig: r.value[1], count: r.count, examples: r.fact.detail ?? {} })))
    : undefined;
}

/**
 * The successful answers by endpoint: the envelope's fields, history records apart (the run's own and the others);
 * an endpoint no successful answer came from goes to `notLearned`.
 */
export function learnSuccesses(
  facts: readonly ReadingFact[],
  notLearned: Record<string, string>,
): NonNullable<Vocabulary['successes']> {
  const successes: NonNullable<Vocabulary['successes']> = {};
  const succ = factsOf<[string, string[]]>(facts, 'vocabulary:success');
  const recs = factsOf<[string, string[]]>(facts, 'vocabulary:record');
  for (const endpoint of ENDPOINTS) {
    const mine = succ.filter((s) => s.value[0] === endpoint);
    const first = mine[0];
    if (!first) {
      notLearned[`successes.${endpoint}`] = 'no successful answer came';
      continue;
    }
    const own = endpoint === 'history-transaksi' ? historyRecordFields(recs, 'own') : undefined;
    const other = endpoint === 'history-transaksi' ? historyRecordFields(recs, 'other') : undefined;
    successes[endpoint] = {
      fields: fieldsFrom(mine.map((s) => ({ sig: s.value[1], count: s.count, examples: s.fact.detail ?? {} }))),
      ...(own || other ? { records: { ...(own ? { own } : {}), ...(other ? { other } : {}) } } : {}),
      ...(first.fact.evidence ? { 'content-type': first.fact.evidence.contentType } : {}),
      seen: mine.reduce((a, s) => a + s.count, 0),
      evidence: evidenceOf(first.fact.evidence),
    };
  }
  return successes;
}

/**
 * Marks in `successes` the fields that carry a parameter's value back: every answer that had the field agreed
 * (nine in ten: a provider may write a value its own way now and then, a month `3` as `03`).
 */
export function markEchoes(facts: readonly ReadingFact[], successes: NonNullable<Vocabulary['successes']>): void {
  const echoes = new Map<string, Map<string, number>>();
  for (const e of factsOf<[string, string, string, string]>(facts, 'vocabulary:echo')) {
    const key = JSON.stringify(e.value.slice(0, 3));
    const counts = echoes.get(key) ?? new Map<string, number>();
    counts.set(e.value[3], (counts.get(e.value[3]) ?? 0) + e.count);
    echoes.set(key, counts);
  }
  for (const [key, verdicts] of echoes) {
    const [endpoint, path, param] = JSON.parse(key) as [Endpoint, string, string];
    const field = successes[endpoint]?.fields[path];
    const same = verdicts.get('same') ?? 0;
    if (!field || field.echo || same === 0 || same < 0.9 * (same + (verdicts.get('other') ?? 0))) continue;
    field.echo = param;
  }
}

/**
 * Marks in the records of the run's own invites the fields that carry a parameter of the invite back (the name
 * it was sent with): every record that had the field agreed, nine in ten (markEchoes).
 */
export function markRecordEchoes(facts: readonly ReadingFact[], successes: NonNullable<Vocabulary['successes']>): void {
  const fields = successes['history-transaksi']?.records?.own;
  if (!fields) return;
  const echoes = new Map<string, Map<string, number>>();
  for (const e of factsOf<[string, string, string]>(facts, 'vocabulary:record-echo')) {
    const key = JSON.stringify(e.value.slice(0, 2));
    const counts = echoes.get(key) ?? new Map<string, number>();
    counts.set(e.value[2], (counts.get(e.value[2]) ?? 0) + e.count);
    echoes.set(key, counts);
  }
  for (const [key, verdicts] of echoes) {
    const [path, param] = JSON.parse(key) as [string, string];
    const field = fields[path];
    const same = verdicts.get('same') ?? 0;
    if (!field || field.echo || same === 0 || same < 0.9 * (same + (verdicts.get('other') ?? 0))) continue;
    field.echo = param;
  }
}

/** The forms of phone numbers with their counts, by endpoint and field (the run's own invites' records apart). */
export function learnForms(facts: readonly ReadingFact[]): NonNullable<Vocabulary['forms']> {
  const forms: NonNullable<Vocabulary['forms']> = {};
  for (const f of factsOf<[string, string, string, string]>(facts, 'vocabulary:form')) {
    const [endpoint, path, own, form] = f.value;
    if (!isEndpoint(endpoint) || (form !== '62' && form !== '08' && form !== '+62')) continue;
    const key = own === 'own' ? `${path} (own invites)` : path;
    const byPath = forms[endpoint] ?? {};
    const shares = byPath[key] ?? {};
    shares[form] = (shares[form] ?? 0) + f.count;
    byPath[key] = shares;
    forms[endpoint] = byPath;
  }
  return forms;
}

/** The products carried out, with the price the balance showed. */
export function learnProducts(facts: readonly ReadingFact[]): NonNullable<Vocabulary['products']> {
  const products: NonNullable<Vocabulary['products']> = {};
  for (const p of factsOf<[string, string]>(facts, 'vocabulary:product')) {
    const [code, kind] = p.value;
    if (kind !== 'akrab' && kind !== 'circle') continue;
    const price = (p.fact.detail as { price?: number } | undefined)?.price;
    const had = products[code];
    products[code] = {
      kind,
      ...(price !== undefined ? { price } : had?.price !== undefined ? { price: had.price } : {}),
      evidence: had?.evidence ?? evidenceOf(p.fact.evidence),
    };
  }
  return products;
}

/**
 * The provider's day (vocabulary-facts.ts, dayOffsets): the whole hour nearest UTC that every record of the run's own
 * invites fits. Undefined without such a record, or when no whole hour fits them all.
 */
export function learnDay(facts: readonly ReadingFact[]): Vocabulary['day'] {
  const spans = factsOf<[number, number]>(facts, 'vocabulary:day').map((f) => f.value);
  if (!spans.length) return undefined;
  const from = Math.max(...spans.map(([a]) => a));
  const to = Math.min(...spans.map(([, b]) => b));
  const hour = from > 0 ? Math.ceil(from / 60) * 60 : to <= 0 ? Math.floor((to - 1) / 60) * 60 : 0;
  return hour >= from && hour < to && hour >= -720 && hour <= 840 ? { 'utc-offset-minutes': hour } : undefined;
}

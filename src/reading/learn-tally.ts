import type { ShownExchange } from '../openapi/types.js';
import { type LearnedFields, problemKind, type ReadingEvidence, type RefusalKind } from './file.js';
import type { ReadingFact } from './types.js';

/**
 * The run's facts of the vocabulary (vocabulary-facts.ts), tallied for the learners of learn-vocabulary.ts: the
 * facts of one knob with their counts, the fields of a level from the signatures seen, a refusal's word and code and
 * the one seen most, the parameter a kind of refusal is about, and an exchange as the file shows it.
 */

/** A redacted exchange as the file shows it: one line of request, one of answer. */
export function evidenceOf(ex: ShownExchange | undefined): ReadingEvidence {
  if (!ex) return { request: '(none)', answer: '(none)' };
  const path = ex.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  const body = ex.method === 'POST' ? ` ${JSON.stringify(ex.params)}` : '';
  const text = ex.body.length > 600 ? `${ex.body.slice(0, 600)}…` : ex.body;
  return { request: `${ex.method} ${path}${body}`, answer: `HTTP ${ex.httpStatus} ${ex.contentType} ${text}` };
}

export interface Counted<T> {
  value: T;
  count: number;
  fact: ReadingFact;
}

/** The facts of one knob, their JSON values parsed. */
export function factsOf<T>(facts: readonly ReadingFact[], knob: string): Counted<T>[] {
  return facts
    .filter((f) => f.knob === knob)
    .map((f) => ({ value: JSON.parse(f.value) as T, count: f.count ?? 1, fact: f }));
}

/**
 * Fields at one level from signatures seen `count` times each (`path: type|type`): the union of paths with their
 * types, each with its share when not every answer had it, and an example when undocumented.
 */
export function fieldsFrom(
  sigs: readonly { sig: string[]; count: number; examples?: Record<string, unknown> }[],
): LearnedFields {
  const total = sigs.reduce((a, s) => a + s.count, 0);
  const seen = new Map<string, { types: Set<string>; count: number; example?: unknown; hasExample: boolean }>();
  for (const s of sigs)
    for (const line of s.sig) {
      const i = line.lastIndexOf(': ');
      const path = line.slice(0, i);
      const f = seen.get(path) ?? { types: new Set<string>(), count: 0, hasExample: false };
      for (const t of line.slice(i + 2).split('|')) f.types.add(t);
      f.count += s.count;
      if (!f.hasExample && s.examples && Object.hasOwn(s.examples, path)) {
        f.example = s.examples[path];
        f.hasExample = true;
      }
      seen.set(path, f);
    }
  const out: LearnedFields = {};
  for (const [path, f] of [...seen].sort(([a], [b]) => a.localeCompare(b)))
    out[path] = {
      type: [...f.types].sort().join('|'),
      ...(f.hasExample ? { example: f.example } : {}),
      ...(f.count < total ? { share: Math.round((f.count / total) * 1000) / 1000 } : {}),
    };
  return out;
}

/** `403 invalid_key`, the key of a refusal's word and code. */
export const wordOf = (http: number, status: string): string => `${http} ${status}`;

/** How often each word and code came, over refusals. */
export function wordCounts(list: readonly Counted<[unknown, number, string, ...unknown[]]>[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of list)
    out.set(wordOf(r.value[1], r.value[2]), (out.get(wordOf(r.value[1], r.value[2])) ?? 0) + r.count);
  return out;
}

/**
 * The word and code seen most often; among those not `foreign` when any is not (a word the provider also gave
 * requests without this fault is another rule's: its own rule for trx_ids, say, met by a request the gate thought
 * wrong only in its product).
 */
export function majorityWord(
  list: readonly Counted<[unknown, number, string, ...unknown[]]>[],
  foreign: ReadonlySet<string> = new Set(),
): string {
  const ranked = [...wordCounts(list)].sort((a, b) => b[1] - a[1]);
  return (ranked.find(([w]) => !foreign.has(w)) ?? ranked[0])?.[0] ?? '';
}

/** The parameter whose value a kind of refusal is about (`malformed-product`: product_code; `wrong-key`: api_key). */
export function paramOfKind(kind: string): string | undefined {
  if (kind === 'wrong-key') return 'api_key';
  if (kind === 'malformed-product') return 'product_code';
  return kind.startsWith('malformed-') ? kind.slice('malformed-'.length).replace(/-/g, '_') : undefined;
}

/** The kind of refusal a malformed value of a parameter is (`api_key`: wrong-key, or missing-key when empty). */
export function kindOfParam(param: string, shape: string): RefusalKind | undefined {
  return problemKind({ param, code: 'invalid' }, shape === 'empty' ? '' : shape);
}

/** A refusal's fact: its faults, HTTP status, word, field signature, whether a value was empty, and endpoint. */
export type Refused = [string[], number, string, string[], boolean, string];

/**
 * A value's fact: endpoint, parameter, shape, outcome, what the document's schema flagged, and the request's other
 * faults (absent in facts of older runs).
 */
export type ValueFact = [string, string, string, string, string, string[]?];

/** The word and code of a kind of refusal on an endpoint, when learned. */
export type WordOfKind = (kind: RefusalKind, endpoint: string) => string | undefined;

/** The word and code the provider gives values of one shape of a parameter on an endpoint, when it has its own. */
export type WordOfValue = (endpoint: string, param: string, shape: string) => string | undefined;

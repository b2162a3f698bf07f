import { isRefusalKind, REFUSAL_KINDS, type RefusalKind, type Vocabulary } from './file.js';
import { refusalEntry } from './learn-refusals.js';
import {
  type Counted,
  evidenceOf,
  kindOfParam,
  paramOfKind,
  type Refused,
  type ValueFact,
  type WordOfKind,
  type WordOfValue,
  wordOf,
} from './learn-tally.js';

/**
 * The values the provider judged otherwise than openapi.yaml's schema, by their shape (`values`), and the words it
 * gives values of one shape where they are not their kind's (`value-words`).
 */

/** A shape of a value of another JSON type than a text (`number:int`, `boolean`, `array`, ...). */
const NOT_TEXT = /^(number:.*|boolean|null|object|array)$/;

/**
 * The words the provider gives values of one shape where it is not its kind's (a limit that is no integer
 * refused as INVALID_TYPE, one out of range as INVALID_LIMIT), by endpoint and parameter and shape: where every
 * request with that value wrong (as the document's schema judges it) got that word, but those whose word another
 * of their faults explains. And where the schema takes a value of another JSON type than a text (a number for a
 * trx_id, read as its digits) and every request with it got one word that no kind about the request itself has and
 * none of their other faults explains: the value is refused, in that word.
 */
export function learnValueWords(
  valueFacts: readonly Counted<ValueFact>[],
  refused: readonly Counted<Refused>[],
  wordOfKind: WordOfKind,
): NonNullable<Vocabulary['value-words']> {
  interface Seen {
    /** The words of the requests no other fault of theirs explains. */
    words: Set<string>;
    all: Set<string>;
    flagged: Set<string>;
    seen: number;
    /** Requests with other faults whose word was this value's (won), or another fault's (lost). */
    won: number;
    lost: number;
    first?: Counted<ValueFact>;
  }
  const shapes = new Map<string, Seen>();
  for (const v of valueFacts) {
    const [endpoint, , , outcome, flagged, others] = v.value;
    const key = JSON.stringify(v.value.slice(0, 3));
    const s = shapes.get(key) ?? { words: new Set(), all: new Set(), flagged: new Set(), seen: 0, won: 0, lost: 0 };
    s.all.add(outcome);
    s.flagged.add(flagged);
    // Facts of older runs tell no other faults: none counts.
    const explained =
      !Array.isArray(others) || others.some((k) => isRefusalKind(k) && wordOfKind(k, endpoint) === outcome);
    if (!explained) {
      s.words.add(outcome);
      s.seen += v.count;
      s.first ??= v;
      if (others?.length) s.won += v.count;
    } else if (others?.length) s.lost += v.count;
    shapes.set(key, s);
  }
  // Kinds about the request itself, not one parameter's value (the key, a body, the business rules).
  const ofRequest = REFUSAL_KINDS.filter((k) => paramOfKind(k) === undefined);
  const out: NonNullable<Vocabulary['value-words']> = {};
  for (const [key, s] of shapes) {
    const [endpoint, param, shape] = JSON.parse(key) as [string, string, string];
    const [word] = [...s.words];
    const kind = kindOfParam(param, shape);
    if (s.words.size !== 1 || !word || word === 'ok' || !kind || !s.first || wordOfKind(kind, endpoint) === word)
      continue;
    const flagged = s.flagged.size === 1 && s.flagged.has('invalid');
    const taken =
      s.flagged.size === 1 &&
      s.flagged.has('') &&
      NOT_TEXT.test(shape) &&
      s.all.size === 1 &&
      !ofRequest.some((k) => wordOfKind(k, endpoint) === word);
    if (!flagged && !taken) continue;
    // The word's code, message and fields as the refusals that got it show them (of this kind alone, if any).
    const all = refused.filter((r) => r.value[5] === endpoint && wordOf(r.value[1], r.value[2]) === word);
    const own = all.filter((r) => r.value[0].length === 1 && r.value[0][0] === kind);
    const list = own.length ? own : all;
    if (!list.length) continue;
    const entry = {
      ...refusalEntry(list),
      seen: s.seen,
      // Its word won over every other fault it came with: the provider refuses it before any other check.
      ...(s.won > 0 && s.lost === 0 ? { first: true } : {}),
      evidence: evidenceOf(s.first.fact.evidence),
    };
    out[`${endpoint}.${param}`] = { ...out[`${endpoint}.${param}`], [shape]: entry };
  }
  return out;
}

/** The word and code of each value shape that has one of its own. */
export function wordOfValueIn(words: NonNullable<Vocabulary['value-words']>): WordOfValue {
  return (endpoint, param, shape) => {
    const e = words[`${endpoint}.${param}`]?.[shape];
    return e ? wordOf(e.http, e.status) : undefined;
  };
}

/**
 * The value words the mock is to serve: none for a shape `values` says the provider takes, nor for one a rule of
 * `values` refuses as a kind whose word it is already (an empty value refused as missing).
 */
export function servedWords(
  words: NonNullable<Vocabulary['value-words']>,
  values: NonNullable<Vocabulary['values']>,
  wordOfKind: WordOfKind,
): NonNullable<Vocabulary['value-words']> {
  const out: NonNullable<Vocabulary['value-words']> = {};
  for (const [key, shapes] of Object.entries(words)) {
    const [endpoint = ''] = key.split('.');
    for (const [shape, entry] of Object.entries(shapes)) {
      const rule = values[key]?.[shape];
      if (rule === 'accepted') continue;
      if (rule && isRefusalKind(rule) && wordOfKind(rule, endpoint) === wordOf(entry.http, entry.status)) continue;
      out[key] = { ...out[key], [shape]: entry };
    }
  }
  return out;
}

/**
 * What the provider judged one value: `accepted` (an answer carried out), a kind about this parameter's value, or
 * undefined when its answer says nothing of it (a refusal for another fault).
 */
function valueVerdict(
  value: ValueFact,
  wordOfKind: WordOfKind,
  wordOfValue: WordOfValue,
  precedence: readonly RefusalKind[] | undefined,
): string | undefined {
  const [endpoint, param, shape, outcome, , others] = value;
  let verdict: string | undefined;
  const mine = kindOfParam(param, shape);
  // A word another fault of the request has too says nothing of this value (a provider with one word for every
  // malformed value, say).
  const shared = (others ?? []).some((k) => k !== mine && isRefusalKind(k) && wordOfKind(k, endpoint) === outcome);
  if (outcome === 'ok') verdict = 'accepted';
  // The word the provider gives values of this shape: refused for this value.
  else if (!shared && mine && wordOfValue(endpoint, param, shape) === outcome) verdict = mine;
  else {
    const kinds = REFUSAL_KINDS.filter((k) => wordOfKind(k, endpoint) === outcome);
    // A value a lookup is by that finds nothing: a transaction, or a product, the provider does not know.
    const lookup =
      endpoint === 'cek-trx-id' && param === 'trx_id'
        ? 'unknown-transaction'
        : endpoint === 'invite-member' && param === 'product_code' && !others?.includes('unknown-product')
          ? 'unknown-product'
          : undefined;
    verdict =
      lookup && kinds.includes(lookup)
        ? lookup
        : shared
          ? undefined
          : kinds.find((k) => k === mine || (k === 'missing-parameter' && shape === 'empty'));
    // Refused for a fault the provider checks after this value's: the value itself passed.
    const order = precedence ?? [];
    const later = (k: RefusalKind): boolean =>
      mine !== undefined && order.includes(k) && order.includes(mine) && order.indexOf(k) > order.indexOf(mine);
    if (!verdict && kinds.length && kinds.every(later)) verdict = 'accepted';
  }
  // A lookup that finds nothing took the value: the document's schema may have refused it.
  if (verdict === 'unknown-transaction') verdict = 'accepted';
  return verdict;
}

/** The verdicts by shape (`[endpoint, param, shape]` as JSON), each with its count, and what the schema flagged. */
function verdictsByShape(
  valueFacts: readonly Counted<ValueFact>[],
  wordOfKind: WordOfKind,
  wordOfValue: WordOfValue,
  precedence: readonly RefusalKind[] | undefined,
): Map<string, { verdicts: Map<string, number>; flagged: Set<string> }> {
  const shapes = new Map<string, { verdicts: Map<string, number>; flagged: Set<string> }>();
  for (const v of valueFacts) {
    const [endpoint, param, shape, , flagged] = v.value;
    const verdict = valueVerdict(v.value, wordOfKind, wordOfValue, precedence);
    if (!verdict) continue;
    const key = JSON.stringify([endpoint, param, shape]);
    const s = shapes.get(key) ?? { verdicts: new Map<string, number>(), flagged: new Set<string>() };
    s.verdicts.set(verdict, (s.verdicts.get(verdict) ?? 0) + v.count);
    s.flagged.add(flagged);
    shapes.set(key, s);
  }
  return shapes;
}

/**
 * The values the provider judged otherwise than the document's schema, by shape, when every answer that says
 * something of that shape agrees: accepted, or refused for that value.
 */
export function learnValues(
  valueFacts: readonly Counted<ValueFact>[],
  wordOfKind: WordOfKind,
  wordOfValue: WordOfValue,
  precedence: readonly RefusalKind[] | undefined,
): NonNullable<Vocabulary['values']> {
  const values: NonNullable<Vocabulary['values']> = {};
  for (const [key, s] of verdictsByShape(valueFacts, wordOfKind, wordOfValue, precedence)) {
    if (s.verdicts.size !== 1) continue;
    const [endpoint, param, shape] = JSON.parse(key) as [string, string, string];
    const [verdict] = [...s.verdicts.keys()] as [string];
    // What the schema judged alike needs no rule: accepted and not flagged, or refused as the schema's own kind (a
    // key the schema takes is still not the run's: a wrong one).
    const schemaSays = s.flagged.has('missing')
      ? 'missing-parameter'
      : s.flagged.has('invalid')
        ? kindOfParam(param, shape)
        : param === 'api_key'
          ? 'wrong-key'
          : 'accepted';
    if (s.flagged.size === 1 && verdict === schemaSays) continue;
    if (verdict !== 'accepted' && !isRefusalKind(verdict)) continue;
    values[`${endpoint}.${param}`] = { ...values[`${endpoint}.${param}`], [shape]: verdict };
  }
  return values;
}

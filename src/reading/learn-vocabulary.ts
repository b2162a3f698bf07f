import { ENDPOINTS, type Endpoint, isEndpoint, type ShownExchange } from '../openapi/types.js';
import {
  isRefusalKind,
  type LearnedFields,
  type LearnedRefusal,
  malformedKind,
  problemKind,
  REFUSAL_KINDS,
  type ReadingEvidence,
  type RefusalKind,
  type Vocabulary,
} from './file.js';
import type { ObservedConflict, ReadingFact } from './types.js';

/**
 * The provider's vocabulary over a run, from the facts of vocabulary-facts.ts: each kind of refusal with its HTTP
 * status, word, message and fields; each endpoint's successful answers with their fields at every level; the
 * forms of every phone-number field with their counts; the products carried out; the order in which the provider
 * checks what a request did wrong; which name wins when two disagree; and the values it judged otherwise than
 * openapi.yaml. Every value with its evidence; what no answer showed is listed under `not-learned`, with why.
 */

/** A redacted exchange as the file shows it: one line of request, one of answer. */
export function evidenceOf(ex: ShownExchange | undefined): ReadingEvidence {
  if (!ex) return { request: '(none)', answer: '(none)' };
  const path = ex.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  const body = ex.method === 'POST' ? ` ${JSON.stringify(ex.params)}` : '';
  const text = ex.body.length > 600 ? `${ex.body.slice(0, 600)}…` : ex.body;
  return { request: `${ex.method} ${path}${body}`, answer: `HTTP ${ex.httpStatus} ${ex.contentType} ${text}` };
}

interface Counted<T> {
  value: T;
  count: number;
  fact: ReadingFact;
}

/** The facts of one knob, their JSON values parsed. */
function factsOf<T>(facts: readonly ReadingFact[], knob: string): Counted<T>[] {
  return facts
    .filter((f) => f.knob === knob)
    .map((f) => ({ value: JSON.parse(f.value) as T, count: f.count ?? 1, fact: f }));
}

/**
 * Fields at one level from signatures seen `count` times each (`path: type|type`): the union of paths with their
 * types, each with its share when not every answer had it, and an example when undocumented.
 */
function fieldsFrom(
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
const wordOf = (http: number, status: string): string => `${http} ${status}`;

/** How often each word and code came, over refusals. */
function wordCounts(list: readonly Counted<[unknown, number, string, ...unknown[]]>[]): Map<string, number> {
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
function majorityWord(
  list: readonly Counted<[unknown, number, string, ...unknown[]]>[],
  foreign: ReadonlySet<string> = new Set(),
): string {
  const ranked = [...wordCounts(list)].sort((a, b) => b[1] - a[1]);
  return (ranked.find(([w]) => !foreign.has(w)) ?? ranked[0])?.[0] ?? '';
}

/** The parameter whose value a kind of refusal is about (`malformed-product`: product_code; `wrong-key`: api_key). */
function paramOfKind(kind: string): string | undefined {
  if (kind === 'wrong-key') return 'api_key';
  if (kind === 'malformed-product') return 'product_code';
  return kind.startsWith('malformed-') ? kind.slice('malformed-'.length).replace(/-/g, '_') : undefined;
}

/** The kind of refusal a malformed value of a parameter is (`api_key`: wrong-key, or missing-key when empty). */
function kindOfParam(param: string, shape: string): RefusalKind | undefined {
  return problemKind({ param, code: 'invalid' }, shape === 'empty' ? '' : shape);
}

/** Whose word a refusal of a request the gate saw nothing wrong with is, by endpoint and word (`ownersOf`). */
type WordOwner = (endpoint: string, word: string) => string | undefined;

/**
 * The parameter each word belongs to on an endpoint, where the gate saw nothing wrong with the requests it was
 * given: the one parameter of such requests that had a value of a shape that got no other answer (a limit `+5`
 * the provider refuses as it refuses limit 0, say). Facts of a run before the request's other faults were kept
 * tell none.
 */
function ownersOf(valueFacts: readonly Counted<ValueFact>[]): WordOwner {
  const outcomes = new Map<string, Set<string>>();
  for (const v of valueFacts) {
    const key = JSON.stringify(v.value.slice(0, 3));
    outcomes.set(key, (outcomes.get(key) ?? new Set()).add(v.value[3]));
  }
  const candidates = new Map<string, Set<string>>();
  for (const v of valueFacts) {
    const [endpoint, param, , outcome, flagged, others] = v.value;
    if (outcome === 'ok' || flagged !== '' || !Array.isArray(others) || others.length) continue;
    if (outcomes.get(JSON.stringify(v.value.slice(0, 3)))?.size !== 1) continue;
    const key = `${endpoint} ${outcome}`;
    candidates.set(key, (candidates.get(key) ?? new Set()).add(param));
  }
  return (endpoint, word) => {
    const params = candidates.get(`${endpoint} ${word}`);
    return params?.size === 1 ? [...params][0] : undefined;
  };
}

/**
 * The words the provider gave (on an endpoint) to requests with no fault the gate knows: its own rules' words
 * (an ID of a shape it refuses, a balance run out), never a kind's that such a request did not have. A word that
 * belongs to the kind's own parameter (`owner`) is the kind's still: the provider refuses more of its values.
 */
function foreignWords(
  refused: readonly Counted<Refused>[],
  endpoint?: string,
  kind?: string,
  owner?: WordOwner,
): Set<string> {
  const param = kind === undefined ? undefined : paramOfKind(kind);
  return new Set(
    refused
      .filter((r) => (endpoint === undefined || r.value[5] === endpoint) && r.value[0].length === 0)
      .filter((r) => param === undefined || owner?.(r.value[5], wordOf(r.value[1], r.value[2])) !== param)
      .map((r) => wordOf(r.value[1], r.value[2])),
  );
}

/**
 * A request with several faults, as the order of checks is learned from: its faults and the word it got; `first`,
 * the fault that word is of where no kind's word tells it (a value's own word).
 */
interface MultiFault {
  faults: RefusalKind[];
  word: string;
  count: number;
  endpoint: string;
  first?: RefusalKind;
}

/** The order the provider checks faults in, from refusals of requests with several: a topological order. */
function precedenceFrom(
  multi: readonly MultiFault[],
  wordOfKind: (kind: RefusalKind, endpoint: string) => string | undefined,
): { order: RefusalKind[]; seen: string[] } | undefined {
  const before = new Map<string, number>();
  for (const m of multi) {
    const matching = m.first ? [m.first] : m.faults.filter((k) => wordOfKind(k, m.endpoint) === m.word);
    // Only a word that is one fault's alone says which was checked first.
    if (matching.length !== 1) continue;
    const first = matching[0] as RefusalKind;
    for (const other of m.faults)
      if (other !== first && wordOfKind(other, m.endpoint) !== m.word)
        before.set(`${first}>${other}`, (before.get(`${first}>${other}`) ?? 0) + m.count);
  }
  if (!before.size) return undefined;
  // Where both orders were seen, the more frequent wins.
  const edges = [...before]
    .filter(([k, n]) => {
      const [a, b] = k.split('>');
      return n >= (before.get(`${b}>${a}`) ?? 0);
    })
    .map(([k]) => k.split('>') as [RefusalKind, RefusalKind]);
  const seen = edges.map(([a, b]) => `${a}>${b}`).sort();
  const kinds = [...new Set(edges.flat())];
  const out: RefusalKind[] = [];
  const left = new Set(kinds);
  while (left.size) {
    // Among those no remaining kind must precede, the simulator's own order breaks ties (REFUSAL_KINDS).
    const free = [...left].filter((k) => !edges.some(([a, b]) => b === k && left.has(a) && a !== k));
    const next = (free.length ? free : [...left]).sort(
      (a, b) => REFUSAL_KINDS.indexOf(a) - REFUSAL_KINDS.indexOf(b),
    )[0];
    if (!next) break;
    out.push(next);
    left.delete(next);
  }
  return { order: out, seen };
}

const WHY_NOT: Partial<Record<RefusalKind, string>> = {
  'balance-too-low': 'no invite was refused for the balance (needs --allow-writes and a balance that runs out)',
  'no-free-slot': 'no invite was refused for a full group',
  'used-trx-id':
    'no used trx_id was refused for that alone (a read-only run repeats one only with a product that cannot exist)',
  'unknown-product': 'no invite named an unknown product with nothing else wrong (needs --allow-writes)',
  'kind-mismatch': 'no invite named the configured product with another kind (needs --allow-writes and --kind)',
  'limit-over-maximum': 'no limit above a maximum was refused',
  'rate-limited': 'no rate-limit answer came',
  'not-json': 'no body that is not JSON was sent',
  'not-object': 'no body that is JSON but no object was sent',
  'unknown-path': 'no unknown path was asked for',
  'other-method': 'no other method was sent',
};

/** A refusal's fact: its faults, HTTP status, word, field signature, whether a value was empty, and endpoint. */
type Refused = [string[], number, string, string[], boolean, string];

/**
 * A value's fact: endpoint, parameter, shape, outcome, what the document's schema flagged, and the request's other
 * faults (absent in facts of older runs).
 */
type ValueFact = [string, string, string, string, string, string[]?];

/** Refusals by kind and endpoint, keyed by `kindAt`. */
type RefusalsByKind = Map<string, Counted<Refused>[]>;

/** The word and code of a kind of refusal on an endpoint, when learned. */
type WordOfKind = (kind: RefusalKind, endpoint: string) => string | undefined;

/** `wrong-key saldo-user`, the key of a kind of refusal on one endpoint. */
const kindAt = (kind: string, endpoint: string): string => `${kind} ${endpoint}`;

/** Adds a refusal to `byKind`, under its kind on its endpoint. */
function addRefusal(byKind: RefusalsByKind, kind: RefusalKind, r: Counted<Refused>): void {
  byKind.set(kindAt(kind, r.value[5]), [...(byKind.get(kindAt(kind, r.value[5])) ?? []), r]);
}

/**
 * The refusals by kind and endpoint: a kind is learned from requests with that fault alone, on each endpoint (a
 * provider may word one kind otherwise on another endpoint: a malformed trx_id refused on invites, looked up and not
 * found on cek).
 */
function refusalsByKind(
  refused: readonly Counted<Refused>[],
  valueFacts: readonly Counted<ValueFact>[],
  inferred: Set<string>,
  owner: WordOwner,
): RefusalsByKind {
  const byKind: RefusalsByKind = new Map();
  // A fault of an empty value tells no kind (read as missing, or as malformed?): its value's rule says it.
  for (const r of refused) {
    const [faults, , , , empty] = r.value;
    const only = faults[0];
    if (faults.length === 1 && only && isRefusalKind(only) && !empty) addRefusal(byKind, only, r);
  }
  // A refusal of several faults whose word is none of the known kinds' is the one fault whose word is unknown; when
  // that word is the one most requests with those faults got (else another rule gave it: a read-only run, whose
  // every invite has an unknown product and a used trx_id, sees a number refused by the provider's own rule so).
  const knownWords = new Set(
    [...byKind].map(([key, l]) => majorityWord(l, foreignWords(refused, undefined, key.split(' ')[0], owner))),
  );
  const ofFaults = (r: Counted<Refused>): string => JSON.stringify([r.value[5], [...r.value[0]].sort()]);
  const bySet = new Map<string, Counted<Refused>[]>();
  for (const r of refused) if (!r.value[4]) bySet.set(ofFaults(r), [...(bySet.get(ofFaults(r)) ?? []), r]);
  const usual = (r: Counted<Refused>): boolean =>
    majorityWord(bySet.get(ofFaults(r)) ?? []) === wordOf(r.value[1], r.value[2]);
  for (const r of refused) {
    const kinds = r.value[0].filter(isRefusalKind);
    const unknown = kinds.filter((k) => !byKind.has(kindAt(k, r.value[5])));
    const word = wordOf(r.value[1], r.value[2]);
    if (kinds.length > 1 && unknown.length === 1 && !knownWords.has(word) && !r.value[4] && usual(r)) {
      addRefusal(byKind, unknown[0] as RefusalKind, r);
      inferred.add(kindAt(unknown[0] as RefusalKind, r.value[5]));
      knownWords.add(word);
    }
  }
  addParameterWords(byKind, refused, valueFacts, knownWords);
  return byKind;
}

/**
 * Adds to `byKind` each word no kind has whose every request carried a value of one parameter that got no other
 * answer: that parameter's (the provider refuses values the document's schema takes: a trx_id rule of its own, say).
 */
function addParameterWords(
  byKind: RefusalsByKind,
  refused: readonly Counted<Refused>[],
  valueFacts: readonly Counted<ValueFact>[],
  knownWords: ReadonlySet<string>,
): void {
  const outcomesOfShape = new Map<string, Set<string>>();
  for (const v of valueFacts) {
    const key = JSON.stringify(v.value.slice(0, 3));
    outcomesOfShape.set(key, (outcomesOfShape.get(key) ?? new Set()).add(v.value[3]));
  }
  for (const w of new Set(refused.map((r) => wordOf(r.value[1], r.value[2])))) {
    if (knownWords.has(w)) continue;
    const params = new Map<string, boolean>();
    for (const v of valueFacts) {
      if (v.value[3] !== w) continue;
      const key = `${v.value[0]} ${v.value[1]}`;
      const only = outcomesOfShape.get(JSON.stringify(v.value.slice(0, 3)))?.size === 1;
      params.set(key, (params.get(key) ?? true) && only);
    }
    const owners = [...params].filter(([, only]) => only).map(([k]) => k.split(' ') as [string, string]);
    const [endpoint, param] = owners.length === 1 ? (owners[0] as [string, string]) : ['', ''];
    const kind = malformedKind(param);
    const shown = refused.filter((r) => wordOf(r.value[1], r.value[2]) === w && r.value[5] === endpoint && !r.value[4]);
    if (kind && !byKind.has(kindAt(kind, endpoint))) for (const r of shown) addRefusal(byKind, kind, r);
  }
}

/**
 * One kind's refusal as learned from its refusals: the word seen most (passing over `foreign` words), its fields,
 * and the other words seen.
 */
function refusalEntry(list: readonly Counted<Refused>[], foreign: ReadonlySet<string> = new Set()): LearnedRefusal {
  const word = majorityWord(list, foreign);
  const mine = list.filter((r) => wordOf(r.value[1], r.value[2]) === word);
  const first = mine[0] as Counted<Refused>;
  const detail = first.fact.detail as { message?: string } | undefined;
  const others = Object.fromEntries([...wordCounts(list)].filter(([w]) => w !== word));
  return {
    http: first.value[1],
    status: first.value[2],
    ...(typeof detail?.message === 'string' ? { message: detail.message } : {}),
    fields: fieldsFrom(
      mine.map((r) => ({
        sig: r.value[3],
        count: r.count,
        examples: (r.fact.detail as { examples?: Record<string, unknown> } | undefined)?.examples ?? {},
      })),
    ),
    seen: list.reduce((a, r) => a + r.count, 0),
    ...(Object.keys(others).length ? { others } : {}),
    evidence: evidenceOf(first.fact.evidence),
  };
}

/** Whether an endpoint's refusals give the kind's word, code and fields (else it is written beside the kind). */
function sameWordAsKind(
  entry: LearnedRefusal,
  list: readonly Counted<Refused>[],
  foreign: ReadonlySet<string>,
): boolean {
  const e = refusalEntry(list, foreign);
  return (
    e.http === entry.http &&
    e.status === entry.status &&
    JSON.stringify(Object.keys(e.fields)) === JSON.stringify(Object.keys(entry.fields))
  );
}

/** The refusals of an empty value alone on an endpoint, the kind's word, that count for the kind there. */
function emptyValueRefusals(
  refused: readonly Counted<Refused>[],
  kind: RefusalKind,
  endpoint: Endpoint,
  entry: LearnedRefusal,
): Counted<Refused>[] {
  return refused.filter(
    (r) =>
      r.value[5] === endpoint &&
      r.value[4] &&
      r.value[0].length === 1 &&
      (kind === 'missing-parameter' || r.value[0][0] === kind) &&
      wordOf(r.value[1], r.value[2]) === wordOf(entry.http, entry.status),
  );
}

/** The refusals learned, kind by kind; a kind no request showed alone goes to `notLearned`, with why. */
function learnRefusals(
  byKind: RefusalsByKind,
  refused: readonly Counted<Refused>[],
  notLearned: Record<string, string>,
  inferred: ReadonlySet<string> = new Set(),
  owner?: WordOwner,
): NonNullable<Vocabulary['refusals']> {
  const refusals: NonNullable<Vocabulary['refusals']> = {};
  for (const kind of REFUSAL_KINDS) {
    const lists: [Endpoint, Counted<Refused>[]][] = ENDPOINTS.map((e): [Endpoint, Counted<Refused>[]] => [
      e,
      byKind.get(kindAt(kind, e)) ?? [],
    ]).filter(([, l]) => l.length);
    const all = lists.flatMap(([, l]) => l);
    if (!all.length) {
      notLearned[`refusals.${kind}`] = WHY_NOT[kind] ?? 'no request had this fault alone';
      continue;
    }
    const entry = refusalEntry(all, foreignWords(refused, undefined, kind, owner));
    // An endpoint whose own word or fields for the kind are others is written beside it; one the kind was seen
    // on only with an empty value (its word the kind's) too.
    for (const e of ENDPOINTS) {
      if (lists.some(([x]) => x === e)) continue;
      const emptyOnes = emptyValueRefusals(refused, kind, e, entry);
      if (emptyOnes.length) lists.push([e, emptyOnes]);
    }
    const foreignOn = (e: Endpoint): Set<string> => foreignWords(refused, e, kind, owner);
    const endpoints = lists.filter(([e, l]) => !sameWordAsKind(entry, l, foreignOn(e)));
    refusals[kind] = {
      ...entry,
      ...(lists.every(([e]) => inferred.has(kindAt(kind, e))) ? { inferred: true } : {}),
      ...(endpoints.length
        ? { endpoints: Object.fromEntries(endpoints.map(([e, l]) => [e, refusalEntry(l, foreignOn(e))])) }
        : {}),
    };
  }
  return refusals;
}

/** The parameters each endpoint was seen with, from the facts of their values. */
function paramsOn(valueFacts: readonly Counted<ValueFact>[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const v of valueFacts) out.set(v.value[0], (out.get(v.value[0]) ?? new Set()).add(v.value[1]));
  return out;
}

/**
 * The word and code of each kind on each endpoint (the endpoint's own, else the kind's), from the refusals; none
 * for a malformed value of a parameter the endpoint was never seen with (no request there can have that fault).
 */
function wordOfKindIn(
  refusals: NonNullable<Vocabulary['refusals']>,
  params: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): WordOfKind {
  return (kind, endpoint) => {
    const param = kind.startsWith('malformed-') ? paramOfKind(kind) : undefined;
    if (param !== undefined && params.has(endpoint) && !params.get(endpoint)?.has(param)) return undefined;
    const entry = refusals[kind];
    const own = isEndpoint(endpoint) ? entry?.endpoints?.[endpoint] : undefined;
    const e = own ?? entry;
    return e ? wordOf(e.http, e.status) : undefined;
  };
}

/**
 * The order the provider checks faults in, from the refusals of requests with several (and `more` such requests,
 * their faults as the provider's own rules see them).
 */
function learnPrecedence(
  refused: readonly Counted<Refused>[],
  wordOfKind: WordOfKind,
  more: readonly MultiFault[] = [],
): { order: RefusalKind[]; seen: string[] } | undefined {
  return precedenceFrom(
    [
      ...refused
        .filter((r) => r.value[0].length > 1)
        .map((r) => ({
          faults: r.value[0].filter(isRefusalKind),
          word: wordOf(r.value[1], r.value[2]),
          count: r.count,
          endpoint: r.value[5],
        })),
      ...more,
    ],
    wordOfKind,
  );
}

/**
 * Requests with a value the provider refuses by a rule of its own (`values`: the document's schema takes it), or
 * words apart (`value-words`), and other faults: the value's kind beside them, with the word the request got (a
 * value's own word: its kind first). Which of them the provider checks first is what the word says.
 */
function ruleFaults(
  valueFacts: readonly Counted<ValueFact>[],
  values: NonNullable<Vocabulary['values']>,
  wordOfValue: WordOfValue,
  words: NonNullable<Vocabulary['value-words']>,
): MultiFault[] {
  const out: MultiFault[] = [];
  for (const v of valueFacts) {
    const [endpoint, param, shape, outcome, flagged, others] = v.value;
    // A value refused before any other check tells nothing of the order of the others.
    if (outcome === 'ok' || !others?.length || words[`${endpoint}.${param}`]?.[shape]?.first) continue;
    const own = wordOfValue(endpoint, param, shape);
    const rule = values[`${endpoint}.${param}`]?.[shape];
    const kind =
      flagged === '' && rule && isRefusalKind(rule)
        ? rule
        : flagged === 'invalid' && own === outcome
          ? kindOfParam(param, shape)
          : undefined;
    const rest = others.filter((k): k is RefusalKind => isRefusalKind(k) && k !== kind);
    if (!kind || !rest.length) continue;
    // The value's own word says it was checked first.
    out.push({
      faults: [kind, ...rest],
      word: outcome,
      count: v.count,
      endpoint,
      ...(outcome === own ? { first: kind } : {}),
    });
  }
  return out;
}

/** The word and code the provider gives values of one shape of a parameter on an endpoint, when it has its own. */
type WordOfValue = (endpoint: string, param: string, shape: string) => string | undefined;

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
function learnValueWords(
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
function wordOfValueIn(words: NonNullable<Vocabulary['value-words']>): WordOfValue {
  return (endpoint, param, shape) => {
    const e = words[`${endpoint}.${param}`]?.[shape];
    return e ? wordOf(e.http, e.status) : undefined;
  };
}

/**
 * The value words the mock is to serve: none for a shape `values` says the provider takes, nor for one a rule of
 * `values` refuses as a kind whose word it is already (an empty value refused as missing).
 */
function servedWords(
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
function learnValues(
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
function learnSuccesses(
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
function markEchoes(facts: readonly ReadingFact[], successes: NonNullable<Vocabulary['successes']>): void {
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
function markRecordEchoes(facts: readonly ReadingFact[], successes: NonNullable<Vocabulary['successes']>): void {
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
function learnForms(facts: readonly ReadingFact[]): NonNullable<Vocabulary['forms']> {
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
function learnProducts(facts: readonly ReadingFact[]): NonNullable<Vocabulary['products']> {
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

/** Which name wins, by endpoint and pair of names: the answer seen most over both methods. */
function learnNames(conflicts: readonly ObservedConflict[]): NonNullable<Vocabulary['names']> {
  const names: NonNullable<Vocabulary['names']> = {};
  for (const c of conflicts) {
    if (!isEndpoint(c.endpoint)) continue;
    const seen = new Map<string, number>();
    for (const v of Object.values(c.byMethod))
      for (const one of v.split(', ')) {
        const word = { refused: 'refuse', canonical: 'canonical', alias: 'alias' }[one];
        if (word) seen.set(word, (seen.get(word) ?? 0) + 1);
      }
    const [winner] = [...seen].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (winner === 'refuse' || winner === 'canonical' || winner === 'alias')
      names[c.endpoint as Endpoint] = { ...names[c.endpoint as Endpoint], [c.subject]: winner };
  }
  return names;
}

/** The vocabulary of a run, from its facts and the two-name observations. */
export function learnVocabulary(facts: readonly ReadingFact[], conflicts: readonly ObservedConflict[]): Vocabulary {
  const notLearned: Record<string, string> = {};
  const refused = factsOf<Refused>(facts, 'vocabulary:refused');
  const valueFacts = factsOf<ValueFact>(facts, 'vocabulary:value');
  const inferred = new Set<string>();
  const owner = ownersOf(valueFacts);
  const byKind = refusalsByKind(refused, valueFacts, inferred, owner);
  const refusals = learnRefusals(byKind, refused, notLearned, inferred, owner);
  const wordOfKind = wordOfKindIn(refusals, paramsOn(valueFacts));
  const words = learnValueWords(valueFacts, refused, wordOfKind);
  const wordOfValue = wordOfValueIn(words);
  // The order of checks from requests with several faults; then again with the faults of values the provider
  // refuses by a rule of its own (a trx_id with spaces around, sent with an unknown product) or words apart, and
  // the values judged by that order.
  const first = learnPrecedence(refused, wordOfKind);
  const firstValues = learnValues(valueFacts, wordOfKind, wordOfValue, first?.order);
  const byRule = ruleFaults(valueFacts, firstValues, wordOfValue, words);
  const learned = byRule.length ? learnPrecedence(refused, wordOfKind, byRule) : first;
  const precedence = learned?.order;
  const values = learnValues(valueFacts, wordOfKind, wordOfValue, precedence);
  const valueWords = servedWords(words, values, wordOfKind);
  const successes = learnSuccesses(facts, notLearned);
  markEchoes(facts, successes);
  markRecordEchoes(facts, successes);
  const forms = learnForms(facts);
  const products = learnProducts(facts);
  if (!Object.keys(products).length) notLearned.products = 'no invite was carried out (needs --allow-writes)';
  const names = learnNames(conflicts);
  const day = learnDay(facts);
  return {
    ...(Object.keys(refusals).length ? { refusals } : {}),
    ...(Object.keys(successes).length ? { successes } : {}),
    ...(Object.keys(forms).length ? { forms } : {}),
    ...(Object.keys(products).length ? { products } : {}),
    ...(learned ? { precedence: learned.order, 'precedence-seen': learned.seen } : {}),
    ...(day ? { day } : {}),
    ...(Object.keys(names).length ? { names } : {}),
    ...(Object.keys(values).length ? { values } : {}),
    ...(Object.keys(valueWords).length ? { 'value-words': valueWords } : {}),
    ...(Object.keys(notLearned).length ? { 'not-learned': notLearned } : {}),
  };
}

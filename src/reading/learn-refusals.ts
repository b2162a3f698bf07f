import { ENDPOINTS, type Endpoint, isEndpoint } from '../openapi/types.js';
import {
  isRefusalKind,
  type LearnedRefusal,
  malformedKind,
  REFUSAL_KINDS,
  type RefusalKind,
  type Vocabulary,
} from './file.js';
import {
  type Counted,
  evidenceOf,
  fieldsFrom,
  majorityWord,
  paramOfKind,
  type Refused,
  type ValueFact,
  type WordOfKind,
  wordCounts,
  wordOf,
} from './learn-tally.js';

/**
 * The provider's refusals learned, kind by kind (`refusals`): each kind from the requests with that fault alone, on
 * each endpoint that words it otherwise too; a kind no request showed alone inferred from requests of several, or
 * listed under `not-learned` with why; and the word of each kind on each endpoint, which the other learners read.
 */

/** Whose word a refusal of a request the gate saw nothing wrong with is, by endpoint and word (`ownersOf`). */
export type WordOwner = (endpoint: string, word: string) => string | undefined;

/**
 * The parameter each word belongs to on an endpoint, where the gate saw nothing wrong with the requests it was
 * given: the one parameter of such requests that had a value of a shape that got no other answer (a limit `+5`
 * the provider refuses as it refuses limit 0, say). Facts of a run before the request's other faults were kept
 * tell none.
 */
export function ownersOf(valueFacts: readonly Counted<ValueFact>[]): WordOwner {
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

/** Refusals by kind and endpoint, keyed by `kindAt`. */
type RefusalsByKind = Map<string, Counted<Refused>[]>;

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
export function refusalsByKind(
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
export function refusalEntry(
  list: readonly Counted<Refused>[],
  foreign: ReadonlySet<string> = new Set(),
): LearnedRefusal {
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
export function learnRefusals(
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
export function paramsOn(valueFacts: readonly Counted<ValueFact>[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const v of valueFacts) out.set(v.value[0], (out.get(v.value[0]) ?? new Set()).add(v.value[1]));
  return out;
}

/**
 * The word and code of each kind on each endpoint (the endpoint's own, else the kind's), from the refusals; none
 * for a malformed value of a parameter the endpoint was never seen with (no request there can have that fault).
 */
export function wordOfKindIn(
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

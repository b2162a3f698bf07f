import { isRefusalKind, REFUSAL_KINDS, type RefusalKind, type Vocabulary } from './file.js';
import {
  type Counted,
  kindOfParam,
  type Refused,
  type ValueFact,
  type WordOfKind,
  type WordOfValue,
  wordOf,
} from './learn-tally.js';

/**
 * The order in which the provider checks what a request did wrong (`precedence`, `precedence-seen`): from the
 * refusals of requests with several faults, a word that is one fault's alone saying which was checked first.
 */

/**
 * A request with several faults, as the order of checks is learned from: its faults and the word it got; `first`,
 * the fault that word is of where no kind's word tells it (a value's own word).
 */
export interface MultiFault {
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

/**
 * The order the provider checks faults in, from the refusals of requests with several (and `more` such requests,
 * their faults as the provider's own rules see them).
 */
export function learnPrecedence(
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
export function ruleFaults(
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

import { type Endpoint, isEndpoint } from '../openapi/types.js';
import type { Vocabulary } from './file.js';
import { learnPrecedence, ruleFaults } from './learn-precedence.js';
import { learnRefusals, ownersOf, paramsOn, refusalsByKind, wordOfKindIn } from './learn-refusals.js';
import {
  learnDay,
  learnForms,
  learnProducts,
  learnSuccesses,
  markEchoes,
  markRecordEchoes,
} from './learn-successes.js';
import { factsOf, type Refused, type ValueFact } from './learn-tally.js';
import { learnValues, learnValueWords, servedWords, wordOfValueIn } from './learn-values.js';
import type { ObservedConflict, ReadingFact } from './types.js';

/**
 * The provider's vocabulary over a run, from the facts of vocabulary-facts.ts: each kind of refusal with its HTTP
 * status, word, message and fields; each endpoint's successful answers with their fields at every level; the
 * forms of every phone-number field with their counts; the products carried out; the order in which the provider
 * checks what a request did wrong; which name wins when two disagree; and the values it judged otherwise than
 * openapi.yaml. Every value with its evidence; what no answer showed is listed under `not-learned`, with why.
 */

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

// The provider's reading, its one public surface: the gate, the probe, the simulator, the CLI and the benchmarks
// import the room from here; the files of src/reading/ import each other directly.
//
// What a target does where its description is silent: what one answer shows of it (answer-facts.ts for the knobs,
// vocabulary-facts.ts for its words, fields and forms), learned over a run (learn-reading.ts, learn-vocabulary.ts),
// written as the reading file of one schema (file.ts), compared with a baseline's (changes.ts), and the points the
// probe watches (probe-points.ts), and its fields as a served answer carries them (serve-fields.ts): the simulator
// serves it (src/simulator/vocabulary.ts).

export { changedAtLeast, changeLine, compareReadings } from './changes.js';
export {
  type EndpointRefusal,
  type LearnedFields,
  problemKind,
  READING_FILE_SCHEMA,
  READING_FILE_VERSION,
  REFUSAL_KINDS,
  type ReadingFile,
  type RefusalKind,
  type ValueWord,
  type Vocabulary,
  vocabularyOf,
} from './file.js';
export { aboutKnob, learnReading, readingYaml, scenarioFacts } from './learn-reading.js';
export { learnVocabulary } from './learn-vocabulary.js';
export { answerPoints, type PointValues, ReadingWindow, roundPoints } from './probe-points.js';
export { conform } from './serve-fields.js';
export type { Grade, LearnedPoint, ObservedConflict, ReadingChange, ReadingFact } from './types.js';
export { type FaultContext, refusedFact } from './vocabulary-facts.js';

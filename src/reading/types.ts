import type { Knob } from '../openapi/open-points.js';
import type { ShownExchange } from '../openapi/types.js';

/**
 * The reading's own types: what one answer says (a fact), what a run learned of an open point, what two names of one
 * parameter at once did, and a change of the reading since a baseline. The gate's summary holds them
 * (src/report/summary-schema.ts); the learners fill them and changes.ts compares them, none importing another for a
 * type.
 */

/**
 * One answer's word on an open point of the provider's reading (a knob of src/simulator/legal.ts, or a raw fact
 * the summary turns into one: `page`, `lag`, `saldo-value`, ...), with the redacted exchange that shows it.
 */
export interface ReadingFact {
  point: 'reading';
  knob: string;
  value: string;
  /** How many times it was seen (answers, records or numbers); 1 when absent. */
  count?: number;
  /** What else the first answer that showed it said (a message, example values). */
  detail?: Record<string, unknown>;
  evidence?: ShownExchange;
}

/** What the target did when two names of one parameter disagreed, per endpoint and pair of names. */
export interface ObservedConflict {
  endpoint: string;
  subject: string;
  /** By method: `refused`, `canonical`, `alias`, `unclear`. */
  byMethod: Record<string, string>;
}

/** One open point as learned: `value` in the form `h2h mock --legal-profile` reads; none when not learned. */
export interface LearnedPoint {
  knob: Knob;
  /** What the provider's description says of it. */
  described: string;
  value?: string;
  /** Why it was not learned, or what else is worth knowing (a mixed answer, an estimate). */
  note?: string;
  /** How often each value was seen. */
  seen: Record<string, number>;
  /** A request and answer that show it (redacted). */
  evidence?: ShownExchange;
}

export const GRADES = ['breaking', 'warning', 'info'] as const;
export type Grade = (typeof GRADES)[number];

export interface ReadingChange {
  grade: Grade;
  /** `refusals.wrong-key.status`, `successes.saldo-user.fields.currency`, `order`. */
  point: string;
  /** `UNAUTHORIZED -> invalid_key`, `gone`, `added (string)`. */
  change: string;
}

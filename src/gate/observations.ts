import type { Endpoint, Method } from '../openapi/types.js';

/** A redacted request and response, as attached to a failing scenario. */
export interface ShownExchange {
  method: string;
  url: string;
  params: unknown;
  /** The POST body as sent, when it was not the parameters as JSON: `application/json [1,2]`. */
  sentBody?: string;
  httpStatus: number;
  contentType: string;
  body: string;
}

/**
 * What the target did on a point the provider leaves open, seen by a scenario: a fact, never a finding. `conflict`:
 * two names of one parameter with different values in one request (`subject` names them, `value` is `refused`,
 * `canonical`, `alias`, or `unclear` when the answer fits either value).
 */
export type Observation =
  | {
      point: 'conflict';
      endpoint: Endpoint;
      method: Method;
      subject: string;
      value: string;
      /** The answer that shows it (the reading's `conflict` carries it as its evidence). */
      evidence?: ShownExchange;
    }
  | ReadingFact;

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

import type { Endpoint, Method, ShownExchange } from '../openapi/types.js';
import type { ReadingFact } from '../reading/index.js';

// A shown exchange is the API model's (openapi/types.ts), a reading fact the reading's (src/reading/types.ts): both
// are named here too, where a scenario's observations are.
export type { ReadingFact, ShownExchange };

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

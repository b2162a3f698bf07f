import type { Endpoint, Exchange, Method, ShownExchange } from '../openapi/types.js';
import type { ReadingFact } from '../reading/index.js';
import { learnPhones, redact, redactValue } from '../redact.js';

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

/** One exchange as a report shows it, redacted: its evidence, a failing scenario's exchanges. */
export function showExchange(ex: Exchange): ShownExchange {
  learnPhones(ex.params);
  learnPhones(ex.body);
  return {
    method: ex.method,
    url: redact(ex.url),
    params: redactValue(ex.params),
    // A body sent as it is (a malformed one) is the request: shown, redacted, in place of the parameters' JSON.
    ...(ex.sentBody ? { sentBody: `${ex.sentBody.contentType} ${redact(ex.sentBody.text.slice(0, 512))}` } : {}),
    httpStatus: ex.httpStatus,
    contentType: ex.contentType,
    body: redact(
      (ex.bodyLength ?? ex.bodyText.length) > 4096
        ? `${ex.bodyText.slice(0, 4096)}… (${ex.bodyLength ?? ex.bodyText.length} bytes)`
        : ex.bodyText,
    ),
  };
}

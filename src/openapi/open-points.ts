// The open points of the API: what the provider's description leaves "not shown". The simulator plays them
// (src/simulator/legal.ts: a reading gives each one value) and the gate learns them (src/reading/learn-reading.ts).

/**
 * Every point the provider leaves open ("not shown"), as a knob with the values a contract-keeping API may
 * take. A *reading* gives every knob one value; the reference simulator is one reading among many, never the
 * API. `values` lists the values a covering set must try; `rate-limit`, `lag`, `balance`, `default-limit` and `max-limit` also take any number.
 */
export const KNOBS = {
  slot: {
    values: ['old', 'next-free', 'round-robin', 'random'],
    about: "which manager and slot an invite gets: the member's old one, the next free, round robin, random",
  },
  order: { values: ['newest', 'oldest', 'shuffled'], about: 'order of history records (shuffled: per request)' },
  'default-limit': { values: ['20', '10', 'all'], about: 'records returned when limit is not sent' },
  'max-limit': {
    values: ['none', '50', '10'],
    about: 'a maximum that silently clamps limit (10: below the limit the gate compares at)',
  },
  'refusal-http': { values: ['4xx', '200'], about: 'HTTP status of a refusal: a 4xx by kind, or 200' },
  'refusal-words': {
    values: ['upper', 'lower', 'other'],
    about: 'refusal status words: INVALID_API_KEY, invalid_api_key, or other words',
  },
  message: { values: ['absent', 'present'], about: '`message` on successes other than invite-member' },
  'manager-form': { values: ['62', '08'], about: 'form of manager_number in history' },
  'member-form': { values: ['62', '08'], about: 'form of member_number in history' },
  extra: { values: ['none', 'everywhere'], about: 'undocumented fields at every level, nested objects included' },
  'content-type': {
    values: ['charset', 'plain', 'params'],
    about: 'Content-Type of answers: with charset, bare, or with more parameters',
  },
  'post-body': { values: ['json+form', 'json'], about: 'POST bodies read: JSON and form-encoded, or JSON only' },
  saldo: {
    values: ['small', 'big', 'fraction'],
    about: 'a balance below 2^31, above it, or with a fraction (BAL-1 asks for a number)',
  },
  repeat: {
    values: ['refuse', 'replay'],
    about: 'a used trx_id: refused, or answered again with its first answer (same parameters), charging nothing',
  },
  'rate-limit': {
    values: ['none', '100/s'],
    about: 'a token bucket (N/s, burst N/4 at least 2); past it: 429 with Retry-After (N/s:503 for 503)',
  },
  lag: { values: ['0ms', '200ms'], about: 'a new transaction is visible to history and cek-trx-id only after this' },
  conflict: {
    values: ['refuse', 'canonical', 'alias'],
    about: 'two names of one parameter with different values: refused, the canonical name used, or the alias used',
  },
  'content-coding': {
    values: ['none', 'gzip', 'deflate', 'br'],
    about: 'answers compressed with this content coding (when the request has no Accept-Encoding, or lists it)',
  },
  'q-case': {
    values: ['any', 'exact'],
    about: 'q matched in any letter case, or letter for letter (numbers in either form both ways)',
  },
  neighbour: {
    values: ['none', '1s'],
    about:
      'another client of the same account invites every N (any duration): history grows and the balance drops between any two calls',
  },
  'trx-id': {
    values: ['any', 'alnum20'],
    about: 'transaction IDs an invite accepts: any of 1 to 64 characters, or at most 20 letters and digits',
  },
  balance: {
    values: ['ample', '4', 'empty'],
    about:
      "the suite account: an ample balance; a balance that covers N invites of the suite's product (any N); or empty: no history at all (ample balance)",
  },
} as const;

export type Knob = keyof typeof KNOBS;
export const KNOB_NAMES = Object.keys(KNOBS) as Knob[];

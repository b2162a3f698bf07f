import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { KNOB_NAMES } from '../openapi/open-points.js';
import { ENDPOINTS } from '../openapi/types.js';

// The provider's reading as a file (reports/provider-reading.yaml): written by the gate (learn-reading.ts,
// learn-vocabulary.ts), read by `h2h mock --legal-profile` (src/simulator/legal.ts) and served
// (src/simulator/vocabulary.ts). One schema for both sides, checked when read. docs/gate.md describes it.

/** The version of the file's schema; a file of another version is refused when read. */
export const READING_FILE_VERSION = 2;

/**
 * Every kind of refusal the gate provokes, named by what the request did wrong (never by a provider's word):
 * the key, the parameters (`malformed-<param>`), the business rules, and the HTTP request itself.
 */
export const REFUSAL_KINDS = [
  'missing-key',
  'wrong-key',
  'conflict',
  'missing-parameter',
  'malformed-trx-id',
  'malformed-product',
  'malformed-msisdn',
  'malformed-name',
  'malformed-kind',
  'malformed-limit',
  'malformed-q',
  'malformed-date',
  'malformed-month',
  'malformed-year',
  'limit-over-maximum',
  'unknown-product',
  'kind-mismatch',
  'used-trx-id',
  'balance-too-low',
  'no-free-slot',
  'unknown-transaction',
  'not-json',
  'not-object',
  'unknown-path',
  'other-method',
  'rate-limited',
] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

export function isRefusalKind(s: string): s is RefusalKind {
  return (REFUSAL_KINDS as readonly string[]).includes(s);
}

/**
 * The kind of refusal one problem of a request is (fold.ts), the one rule the gate learns by and the mock serves
 * by: two names at odds a `conflict`; no key (or an empty one) a `missing-key`, a key of another JSON type a
 * `wrong-key` (it was sent: a provider reads it as a key that is not the caller's); another parameter missing, or
 * malformed.
 */
export function problemKind(
  q: { param: string; code: 'missing' | 'invalid' | 'conflict' },
  value: unknown,
): RefusalKind | undefined {
  if (q.code === 'conflict') return 'conflict';
  if (q.param === 'api_key') return q.code === 'missing' || value === '' ? 'missing-key' : 'wrong-key';
  if (q.code === 'missing') return 'missing-parameter';
  return malformedKind(q.param);
}

/** The refusal kind of a malformed parameter (canonical name): `msisdn` -> `malformed-msisdn`. */
export function malformedKind(param: string): RefusalKind | undefined {
  const kind = `malformed-${param === 'product_code' ? 'product' : param.replace(/_/g, '-')}`;
  return isRefusalKind(kind) ? kind : undefined;
}

const evidence = {
  type: 'object',
  additionalProperties: false,
  required: ['request', 'answer'],
  properties: {
    /** `POST /api/saldo-user {"api_key":"***"}`, redacted. */
    request: { type: 'string' },
    /** `HTTP 403 application/json {...}`, redacted. */
    answer: { type: 'string' },
  },
} as const satisfies JSONSchema;

/** A field at some level of an answer (`data[].waktu`): its JSON type(s), and an example when undocumented. */
const field = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    /** `string`, `number`, `boolean`, `null`, `object`, `array`, or several joined by `|`. */
    type: {
      type: 'string',
      pattern: '^(string|number|boolean|null|object|array)(\\|(string|number|boolean|null|object|array))*$',
    },
    /** A value the provider sent (undocumented fields only; a phone number is replaced by one of its form). */
    example: {},
    /** How many of the answers (or records) that had its level carried it, when not all did. */
    share: { type: 'number', minimum: 0, maximum: 1 },
    /** The parameter whose value it carries back (null, or absent, when the request has none). */
    echo: { type: 'string' },
  },
} as const satisfies JSONSchema;

const fieldValues = { type: 'object', additionalProperties: field } as const satisfies JSONSchema;

const count = { type: 'integer', minimum: 0 } as const satisfies JSONSchema;

const refusalProperties = {
  http: { type: 'integer', minimum: 100, maximum: 599 },
  /** The status word. */
  status: { type: 'string' },
  /** A message the provider sent with it (an example). */
  message: { type: 'string' },
  fields: fieldValues,
  /** Answers of this kind seen. */
  seen: count,
  /** Other words or codes seen for this kind, with how often: `403 invalid_key: 3`. */
  others: { type: 'object', additionalProperties: count },
  /**
   * True when no request had this fault alone: the word was inferred from requests of several faults (the one
   * whose word was unknown). Served, but never compared with another run as a change.
   */
  inferred: { type: 'boolean' },
  evidence,
} as const satisfies Record<string, JSONSchema>;

const endpointRefusal = {
  type: 'object',
  additionalProperties: false,
  required: ['http', 'status', 'fields', 'seen', 'evidence'],
  properties: refusalProperties,
} as const satisfies JSONSchema;

/** A word a value of one shape gets (`value-words`): a refusal, and whether the provider refuses it first. */
const valueWord = {
  type: 'object',
  additionalProperties: false,
  required: ['http', 'status', 'fields', 'seen', 'evidence'],
  properties: {
    ...refusalProperties,
    /**
     * True when its word won over every other fault it came with (a provider that checks the JSON types of the
     * parameters as it reads them, before the key): served before any other check.
     */
    first: { type: 'boolean' },
  },
} as const satisfies JSONSchema;

const refusal = {
  type: 'object',
  additionalProperties: false,
  required: ['http', 'status', 'fields', 'seen', 'evidence'],
  properties: {
    ...refusalProperties,
    /** Endpoints that word this kind otherwise, each with its own. */
    endpoints: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(ENDPOINTS.map((e) => [e, endpointRefusal])) as Record<
        (typeof ENDPOINTS)[number],
        typeof endpointRefusal
      >,
    },
  },
} as const satisfies JSONSchema;

const learnedSuccess = {
  type: 'object',
  additionalProperties: false,
  required: ['fields', 'seen', 'evidence'],
  properties: {
    /** Every field at every level but history records': documented ones with their type, the others with an example. */
    fields: fieldValues,
    /** History records: those of the run's own invites and the others, each with its fields. */
    records: {
      type: 'object',
      additionalProperties: false,
      properties: { own: fieldValues, other: fieldValues },
    },
    /** The content type and content coding the answers came with. */
    'content-type': { type: 'string' },
    seen: count,
    evidence,
  },
} as const satisfies JSONSchema;

/** `{62: 99, 08: 77}`: how many numbers of a field were seen in each form. */
const formShares = {
  type: 'object',
  additionalProperties: false,
  properties: { '62': count, '08': count, '+62': count },
} as const satisfies JSONSchema;

const endpointMap = <T extends JSONSchema>(of: T) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(ENDPOINTS.map((e) => [e, of])) as Record<(typeof ENDPOINTS)[number], T>,
  }) as const;

const knobValue = { anyOf: [{ type: 'string' }, { type: 'number' }] } as const satisfies JSONSchema;

/** The file: the knobs in `--legal-profile`'s form, then the provider's vocabulary, each value with its evidence. */
export const READING_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** READING_FILE_VERSION; a file without it is a hand-written profile (knobs only). */
    version: { type: 'integer' },
    /** A named profile the knobs apply on top of (hand-written files). */
    profile: { type: 'string' },
    ...(Object.fromEntries(KNOB_NAMES.map((k) => [k, knobValue])) as Record<
      (typeof KNOB_NAMES)[number],
      typeof knobValue
    >),
    /** Where the file was learned: the target (no key), the run's time and seed. */
    learned: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'at'],
      properties: { from: { type: 'string' }, at: { type: 'string' }, run: { type: 'string' } },
    },
    /** Each knob's evidence: a request and answer that show its value. */
    evidence: { type: 'object', additionalProperties: evidence },
    /** The provider's refusals by kind (REFUSAL_KINDS). */
    // One schema for every kind (propertyNames names them): spelt out per kind, the schema was 131 KB and ajv took
    // 4 s of CPU to compile it at every start of h2h mock --legal-profile.
    refusals: {
      type: 'object',
      propertyNames: { enum: [...REFUSAL_KINDS] },
      additionalProperties: refusal,
    },
    /** The provider's successful answers, by endpoint. */
    successes: endpointMap(learnedSuccess),
    /** The forms of each phone-number field, by endpoint and field path. */
    forms: endpointMap({ type: 'object', additionalProperties: formShares }),
    /** Products seen carried out, by code: their kind and the price the balance showed. */
    products: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['kind'],
        properties: {
          kind: { type: 'string', enum: ['akrab', 'circle'] },
          price: { type: 'number', exclusiveMinimum: 0 },
          evidence,
        },
      },
    },
    /**
     * The provider's day: the offset from UTC (minutes, whole hours) at which the dates of the run's own invites'
     * records fall, the one nearest UTC (an Indonesian provider dating by WIB: 420, seen between 17:00 and 24:00
     * UTC, when WIB's date is UTC's next; 0 at other hours, when the two agree).
     */
    day: {
      type: 'object',
      additionalProperties: false,
      required: ['utc-offset-minutes'],
      properties: { 'utc-offset-minutes': { type: 'integer', minimum: -720, maximum: 840 } },
    },
    /** Which refusal a request with several faults gets: kinds in the order the provider checks them. */
    precedence: { type: 'array', items: { type: 'string', enum: [...REFUSAL_KINDS] } },
    /**
     * The pairs of that order seen directly, `first>second`: a request with both faults got the first's refusal.
     * Two runs are compared by these alone (the rest of `precedence` is a tie-break, not something seen).
     */
    'precedence-seen': { type: 'array', items: { type: 'string', pattern: '^[a-z-]+>[a-z-]+$' } },
    /**
     * Which name wins when two names of one parameter carry different values, by endpoint and parameter:
     * refuse, canonical or alias.
     */
    names: endpointMap({
      type: 'object',
      additionalProperties: { type: 'string', enum: ['refuse', 'canonical', 'alias'] },
    }),
    /**
     * Values of a parameter the provider judged otherwise than openapi.yaml's schema, by the value's shape
     * (`d4-d2-d2`, `08d10`, `empty`): `accepted`, or the kind of refusal it got.
     */
    values: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['accepted', ...REFUSAL_KINDS] },
      },
    },
    /**
     * Words the provider gives a value of one shape where they are not its kind's (a limit that is no integer
     * refused as INVALID_TYPE where one out of range is refused as INVALID_LIMIT), by endpoint and parameter
     * (`history-transaksi.limit`) and the value's shape (`number:fraction`): each a refusal as in `refusals`.
     */
    'value-words': {
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: valueWord },
    },
    /** What was not learned, by point (`refusals.balance-too-low`), with the reason. */
    'not-learned': { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const satisfies JSONSchema;

export type ReadingFile = FromSchema<typeof READING_FILE_SCHEMA>;
export type Vocabulary = Omit<ReadingFile, 'version' | 'profile' | 'evidence' | (typeof KNOB_NAMES)[number]>;

/** The vocabulary of a reading file: all it holds but its version, profile, evidence and knobs. */
export function vocabularyOf(file: ReadingFile): Vocabulary {
  const { version: _v, profile: _p, evidence: _e, ...rest } = file;
  return Object.fromEntries(Object.entries(rest).filter(([k]) => !(KNOB_NAMES as readonly string[]).includes(k)));
}
export type LearnedRefusal = FromSchema<typeof refusal>;
export type EndpointRefusal = FromSchema<typeof endpointRefusal>;
export type ValueWord = FromSchema<typeof valueWord>;
export type LearnedSuccess = FromSchema<typeof learnedSuccess>;
export type LearnedFields = FromSchema<typeof fieldValues>;
export type ReadingEvidence = FromSchema<typeof evidence>;

/** What the simulator answers: an HTTP status, a JSON body, and any extra headers. */
export interface Answer {
  http: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A request handled by the simulator's rules (SimState.handle). */
export interface Handled {
  answer: Answer;
  /** The request passed every check that does not depend on money or slots: it could have spent money. */
  couldSucceed: boolean;
  /** The request's parameters, aliases folded into canonical names. */
  params: Record<string, unknown>;
}

/**
 * The reference simulator's refusal statuses and the HTTP status each gets under the `refusal-http=4xx`
 * reading. The provider documents none of them: they are this simulator's words, not the API's.
 */
export const REFUSALS = {
  INVALID_API_KEY: 401,
  MISSING_PARAMETER: 400,
  CONFLICTING_PARAMETER: 400,
  INVALID_PARAMETER: 400,
  INVALID_TRX_ID: 400,
  INVALID_PRODUCT_CODE: 400,
  INVALID_MSISDN: 400,
  INVALID_NAME: 400,
  INVALID_KIND: 400,
  INVALID_LIMIT: 400,
  INVALID_Q: 400,
  INVALID_DATE: 400,
  INVALID_MONTH: 400,
  INVALID_YEAR: 400,
  MALFORMED_JSON: 400,
  MALFORMED_REQUEST: 400,
  UNKNOWN_PRODUCT: 422,
  KIND_MISMATCH: 422,
  DUPLICATE_TRX_ID: 409,
  NO_FREE_SLOT: 409,
  INSUFFICIENT_BALANCE: 402,
  TRX_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  MAINTENANCE: 503,
} as const satisfies Record<string, number>;

export type RefusalStatus = keyof typeof REFUSALS;

/** A refusal envelope: `ok` false, a distinct status, a clear message. */
export function refuse(status: RefusalStatus, message: string): Answer {
  return { http: REFUSALS[status], body: { ok: false, status, message } };
}

/** A successful answer: `ok` true, status SUCCESS, and the fields. */
export function success(fields: Record<string, unknown>): Answer {
  return { http: 200, body: { ok: true, status: 'SUCCESS', ...fields } };
}

/** The refusal status for a request problem of a parameter (`INVALID_MSISDN`), or INVALID_PARAMETER. */
export function invalidStatus(param: string): RefusalStatus {
  const name = `INVALID_${param.toUpperCase()}`;
  return name in REFUSALS ? (name as RefusalStatus) : 'INVALID_PARAMETER';
}

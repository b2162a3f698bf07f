import type { OpenAPIV3_1 } from 'openapi-types';

/** A schema of openapi.yaml, and a `$ref` to one: the names every room uses for them. */
export type Schema = OpenAPIV3_1.SchemaObject;
export type Ref = OpenAPIV3_1.ReferenceObject;
/** A node of a YAML or JSON document, read without a schema. */
export type DocNode = Record<string, unknown>;

/** The four endpoints, named as the API names them (the last segment of their path). */
export const ENDPOINTS = ['invite-member', 'history-transaksi', 'cek-trx-id', 'saldo-user'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Endpoints the probe may call: everything but invite-member. */
export const READ_ONLY_ENDPOINTS = ['saldo-user', 'history-transaksi', 'cek-trx-id'] as const;
export type ReadOnlyEndpoint = (typeof READ_ONLY_ENDPOINTS)[number];

/** Every endpoint in the gate's order: the reads, then invite-member (the catalogue's areas go so). */
export const ENDPOINTS_READS_FIRST = [...READ_ONLY_ENDPOINTS, 'invite-member'] as const;

/** The endpoints that take parameters besides the key: all but saldo-user. */
export const ENDPOINTS_WITH_PARAMS = ENDPOINTS.filter((e): e is Exclude<Endpoint, 'saldo-user'> => e !== 'saldo-user');

export const METHODS = ['GET', 'POST'] as const;
export type Method = (typeof METHODS)[number];

/** Clause ids of ../shared/api/contract-clauses.md, in the order they are listed there. */
export const CLAUSE_IDS = [
  'ENV-1',
  'ENV-2',
  'ENV-3',
  'ENV-4',
  'AUTH-1',
  'BAL-1',
  'BAL-2',
  'HIS-1',
  'HIS-2',
  'HIS-3',
  'HIS-4',
  'HIS-5',
  'TRX-1',
  'TRX-2',
  'INV-1',
  'INV-2',
  'INV-3',
  'INV-4',
  'INV-5',
  'INV-6',
] as const;
export type ClauseId = (typeof CLAUSE_IDS)[number];

export function isEndpoint(value: string): value is Endpoint {
  return (ENDPOINTS as readonly string[]).includes(value);
}

export function isClauseId(value: string): value is ClauseId {
  return (CLAUSE_IDS as readonly string[]).includes(value);
}

/** Parameters as sent on the wire: names may be aliases; GET values are strings. */
export type Params = Record<string, unknown>;

/** One request and its answer: what every check reads. */
export interface Exchange {
  endpoint: Endpoint;
  method: Method;
  /** Parameters as sent, aliases included. May hold the API key: pass through redact() before output. */
  params: Params;
  /** The URL as sent. On GET it holds the key: pass through redact() before output. */
  url: string;
  /** The POST body as sent, when it was not `params` as JSON (a malformed body, another media type). */
  sentBody?: { text: string; contentType: string };
  httpStatus: number;
  contentType: string;
  /** Response headers, names in lower case (Retry-After, say). */
  headers?: Record<string, string>;
  /**
   * The body as text, for evidence and messages: its first BODY_TEXT_KEPT bytes when it is longer (then
   * `bodyLength` gives its whole length); `body` holds all of it, parsed.
   */
  bodyText: string;
  /** The body's whole length in characters, when `bodyText` holds only its beginning. */
  bodyLength?: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  /** Why a body that may be JSON was not read as such: nested deeper than the toolkit reads (src/shared/json.ts). */
  bodyProblem?: string;
  durationMs: number;
}

/** The most of an answer's text an exchange keeps beside its parsed body (every reader of it reads less). */
export const BODY_TEXT_KEPT = 8192;

/**
 * A redacted request and response, as attached to a failing scenario and as the evidence of the provider's reading
 * (src/plan/observations.ts, showExchange, makes one).
 */
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

/** A broken clause: data, not an exception (failures of the API under test are findings). */
export interface Finding {
  clause: ClauseId;
  endpoint: Endpoint;
  method?: Method;
  /** The alias names this request used in place of canonical names, if any. */
  aliases?: string[];
  /** JSON path into the response (or request) where the contract broke, e.g. `$.data[2].date`. */
  path: string;
  expected: string;
  actual: string;
  message: string;
  /** For a generated case: what input it was (`msisdn: prefix 07`). */
  input?: string;
}

/** A field or status value that openapi.yaml does not name: reported, fails only a strict run. */
export interface Drift {
  endpoint: Endpoint;
  /** `http`: a refusal's HTTP status outside the team's `known_http_statuses`. */
  kind: 'field' | 'status' | 'http';
  /** JSON path with array indices folded to `[]`, so one drift is reported once. */
  path: string;
  value?: string;
}

/** One canonical parameter of an endpoint, with the aliases that stand for it. */
/**
 * What a parameter is for (`x-role` in openapi.yaml): its role decides the classes of value the gate sends it
 * (src/plan/generators/roles.ts), whatever its schema says.
 */
export const ROLES = [
  'secret',
  'identifier',
  'phone',
  'match-text',
  'count',
  'date',
  'month',
  'year',
  'enum',
  'name',
  'product',
] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

export interface ParamInfo {
  name: string;
  /** What the parameter is for (`x-role`). */
  role: Role;
  aliases: string[];
  required: boolean;
  description: string;
  /** The parameter's schema, with its `$ref` resolved. */
  schema: OpenAPIV3_1.SchemaObject;
}

/** One endpoint as the document describes it, on both methods. */
export interface OperationInfo {
  endpoint: Endpoint;
  path: string;
  operations: Record<Method, OpenAPIV3_1.OperationObject>;
  params: ParamInfo[];
  /** Clause ids of `x-clauses` (union of both methods). */
  clauses: ClauseId[];
  /** Component name of the POST body schema, e.g. `InviteRequest`. */
  requestSchema: string;
  /** Component name of the success branch of the 200 response, e.g. `InviteResult`. */
  successSchema: string;
}

/** A document that cannot be used: a failure of the program's input, not of the API (exit 2). */
export class DocumentError extends Error {}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { derefIn } from './raw.js';
import {
  type ClauseId,
  type Drift,
  ENDPOINTS,
  type Endpoint,
  isClauseId,
  isEndpoint,
  METHODS,
  type Method,
  type Params,
} from './types.js';

export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

/** Vendor extensions this toolkit reads; ajv is told about them so strict mode stays on. */
export const EXTENSION_KEYWORDS = ['x-aliases', 'x-assumption', 'x-known-values', 'x-clauses'] as const;

type Schema = OpenAPIV3_1.SchemaObject;
type Ref = OpenAPIV3_1.ReferenceObject;

/** A thrown error for a document that cannot be used (a failure of the program's input, not of the API). */
export class SpecError extends Error {}

/** One canonical parameter of an endpoint, with the aliases that stand for it. */
export interface ParamInfo {
  name: string;
  aliases: string[];
  required: boolean;
  description: string;
  /** The parameter's schema, with its `$ref` resolved. */
  schema: Schema;
}

/** What a team knows of its provider beyond the document: listed values are never drift. */
export interface DriftOptions {
  /** Status words the provider is known to use (refusals and transaction states). */
  knownStatuses?: readonly string[];
  /** HTTP statuses the provider is known to give refusals. */
  knownHttpStatuses?: readonly number[];
  /** The HTTP status of the answer, compared with `knownHttpStatuses`. */
  httpStatus?: number;
}

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

/** Why a request is refused before any business rule runs. */
export interface RequestProblem {
  /** Canonical parameter name, or '' for the request as a whole. */
  param: string;
  code: 'missing' | 'invalid' | 'conflict';
  message: string;
}

export interface FoldedRequest {
  /** Canonical names to values (coerced to the schema's types when valid). */
  params: Record<string, unknown>;
  /** For each canonical parameter that was sent, the names used on the wire. */
  sentAs: Record<string, string[]>;
  problems: RequestProblem[];
}

interface Resolved {
  properties: Map<string, Schema>;
  items?: Schema;
  knownValues?: string[];
}

type AddFormats = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS: under nodenext its default import is the module object on some toolchains.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

function ext<T>(obj: object, key: string): T | undefined {
  return (obj as Record<string, unknown>)[key] as T | undefined;
}

const DOC_ID = 'h2h:openapi';

/**
 * The loaded openapi.yaml with its validators, compiled once. Everything that validates a request or a
 * response (suite, probe, simulator, `h2h validate`) goes through one Spec.
 */
export class Spec {
  readonly operations: ReadonlyMap<Endpoint, OperationInfo>;
  private readonly responseAjv: Ajv2020;
  private readonly requestAjv: Ajv2020;
  private readonly requestValidators = new Map<Endpoint, ValidateFunction>();
  private readonly successValidators = new Map<Endpoint, ValidateFunction>();
  private readonly envelopeValidator: ValidateFunction;
  private readonly refusalValidator: ValidateFunction;
  private readonly resolvedCache = new Map<Schema, Resolved>();
  private readonly inlineValidators = new WeakMap<object, ValidateFunction>();

  constructor(
    readonly doc: OpenAPIV3_1.Document,
    readonly source = '(in memory)',
  ) {
    const schemas = doc.components?.schemas;
    if (!schemas) throw new SpecError(`${source}: components.schemas is missing`);
    this.responseAjv = Spec.newAjv(false, schemas);
    this.requestAjv = Spec.newAjv(true, schemas);
    this.envelopeValidator = this.compile(this.responseAjv, 'Envelope');
    this.refusalValidator = this.compile(this.responseAjv, 'Refusal');
    const ops = new Map<Endpoint, OperationInfo>();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const endpoint = path.split('/').pop() ?? '';
      if (!isEndpoint(endpoint)) throw new SpecError(`${source}: path ${path} is not one of ${ENDPOINTS.join(', ')}`);
      const info = this.readOperation(endpoint, path, item ?? {});
      ops.set(endpoint, info);
      this.requestValidators.set(endpoint, this.compile(this.requestAjv, info.requestSchema));
      this.successValidators.set(endpoint, this.compile(this.responseAjv, info.successSchema));
    }
    for (const endpoint of ENDPOINTS) {
      if (!ops.has(endpoint)) throw new SpecError(`${source}: path /api/${endpoint} is missing`);
    }
    this.operations = ops;
  }

  /** A fresh Ajv (draft 2020-12, strict, all errors, formats) that knows this document's schemas. */
  static newAjv(coerce: boolean, schemas: Record<string, Schema> = {}): Ajv2020 {
    const ajv = new Ajv2020({ allErrors: true, strict: true, coerceTypes: coerce, useDefaults: false });
    addFormats(ajv);
    for (const keyword of [...EXTENSION_KEYWORDS, 'components']) ajv.addKeyword({ keyword });
    ajv.addSchema({ $id: DOC_ID, components: { schemas } });
    return ajv;
  }

  /** The validator of a component schema, compiled once by ajv's cache. */
  compile(ajv: Ajv2020, component: string): ValidateFunction {
    const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/${component}`);
    if (!validate) throw new SpecError(`${this.source}: components.schemas.${component} is missing`);
    return validate;
  }

  /**
   * Validation errors of a value against an inline schema of the document (a media type's `oneOf`, a
   * parameter's schema), its local `$ref`s resolved against the document. Compiled once per schema object.
   */
  inlineErrors(schema: Schema | Ref, value: unknown): string[] {
    let validate = this.inlineValidators.get(schema);
    if (!validate) {
      validate = this.responseAjv.compile(absoluteRefs(schema) as object);
      this.inlineValidators.set(schema, validate);
    }
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  }

  operation(endpoint: Endpoint): OperationInfo {
    const info = this.operations.get(endpoint);
    if (!info) throw new SpecError(`unknown endpoint ${endpoint}`);
    return info;
  }

  /** Resolves a local `$ref` (`#/components/...`) in this document; a dangling one is a SpecError. */
  deref<T extends object>(value: T | Ref): T {
    const out = derefIn<T>(this.doc, value);
    if (out === undefined)
      throw new SpecError(`${this.source}: $ref ${isRef(value) ? value.$ref : ''} points at nothing`);
    return out;
  }

  private readOperation(endpoint: Endpoint, path: string, item: OpenAPIV3_1.PathItemObject): OperationInfo {
    const operations = {} as Record<Method, OpenAPIV3_1.OperationObject>;
    for (const method of METHODS) {
      const op = item[method.toLowerCase() as 'get' | 'post'];
      if (!op) throw new SpecError(`${this.source}: ${path} has no ${method}`);
      operations[method] = op;
    }
    const params: ParamInfo[] = (operations.GET.parameters ?? []).map((p) => {
      const param = this.deref<OpenAPIV3_1.ParameterObject>(p);
      return {
        name: param.name,
        aliases: ext<string[]>(param, 'x-aliases') ?? [],
        required: param.required === true,
        description: param.description ?? '',
        schema: this.deref<Schema>(param.schema ?? {}),
      };
    });
    const clauses = new Set<ClauseId>();
    for (const op of Object.values(operations)) {
      for (const id of ext<string[]>(op, 'x-clauses') ?? []) {
        if (!isClauseId(id)) throw new SpecError(`${this.source}: ${path} names unknown clause ${id}`);
        clauses.add(id);
      }
    }
    const body = this.deref<OpenAPIV3_1.RequestBodyObject>(operations.POST.requestBody ?? { content: {} });
    const bodySchema = body.content['application/json']?.schema;
    const requestSchema = isRef(bodySchema) ? componentName(bodySchema.$ref) : '';
    if (!requestSchema) throw new SpecError(`${this.source}: POST ${path} body must $ref a component schema`);
    const ok = this.deref<OpenAPIV3_1.ResponseObject>(operations.GET.responses?.['200'] ?? { description: '' });
    const oneOf = (ok.content?.['application/json']?.schema as Schema | undefined)?.oneOf ?? [];
    const success = oneOf.find((b) => isRef(b) && componentName(b.$ref) !== 'Refusal');
    if (!success || !isRef(success)) {
      throw new SpecError(`${this.source}: ${path} 200 response must be oneOf [<result>, Refusal]`);
    }
    return {
      endpoint,
      path,
      operations,
      params,
      clauses: [...clauses],
      requestSchema,
      successSchema: componentName(success.$ref),
    };
  }

  /**
   * Folds aliases into canonical names and validates the result against the endpoint's request schema.
   * Two names of one parameter with different values are a conflict, never a silent pick. Names the
   * document does not know are ignored, as the API would.
   */
  foldRequest(endpoint: Endpoint, raw: Params): FoldedRequest {
    const info = this.operation(endpoint);
    const params: Record<string, unknown> = {};
    const sentAs: Record<string, string[]> = {};
    const problems: RequestProblem[] = [];
    for (const p of info.params) {
      const seen: { name: string; value: unknown }[] = [];
      for (const name of [p.name, ...p.aliases]) {
        if (!Object.hasOwn(raw, name) || raw[name] === undefined) continue;
        const value = raw[name];
        for (const v of Array.isArray(value) ? value : [value]) seen.push({ name, value: v });
      }
      if (seen.length === 0) continue;
      sentAs[p.name] = [...new Set(seen.map((s) => s.name))];
      const distinct = new Set(seen.map((s) => JSON.stringify(s.value)));
      if (distinct.size > 1) {
        problems.push({
          param: p.name,
          code: 'conflict',
          message: `${sentAs[p.name]?.join(' and ')} name one parameter (${p.name}) but carry different values`,
        });
        continue;
      }
      params[p.name] = seen[0]?.value;
    }
    const validate = this.requestValidators.get(endpoint);
    if (validate && !validate(params)) {
      for (const err of validate.errors ?? []) {
        if (err.keyword === 'required') {
          const missing = String(err.params.missingProperty);
          if (problems.some((q) => q.param === missing)) continue;
          const names = [missing, ...(info.params.find((q) => q.name === missing)?.aliases ?? [])];
          problems.push({ param: missing, code: 'missing', message: `${names.join(' | ')} is required` });
        } else {
          const param = err.instancePath.split('/')[1] ?? '';
          if (problems.some((q) => q.param === param)) continue;
          problems.push({ param, code: 'invalid', message: describeParamError(param, err) });
        }
      }
    }
    return { params, sentAs, problems };
  }

  /** ajv errors of the envelope (ENV-1), or [] when the body is a JSON object with boolean ok and string status. */
  envelopeErrors(body: unknown): ErrorObject[] {
    return this.envelopeValidator(body) ? [] : [...(this.envelopeValidator.errors ?? [])];
  }

  /** ajv errors of a success body against the endpoint's result schema. */
  successErrors(endpoint: Endpoint, body: unknown): ErrorObject[] {
    const validate = this.successValidators.get(endpoint);
    if (!validate) throw new SpecError(`no success validator for ${endpoint}`);
    return validate(body) ? [] : [...(validate.errors ?? [])];
  }

  /** ajv errors of a refusal body against the Refusal schema. */
  refusalErrors(body: unknown): ErrorObject[] {
    return this.refusalValidator(body) ? [] : [...(this.refusalValidator.errors ?? [])];
  }

  /**
   * Fields and status values that the document does not name, in a body that has the envelope. Array
   * indices are folded so each unnamed field is reported once. A refusal's status word and HTTP status are
   * drift only against the lists a team gives (`known_statuses`, `known_http_statuses`): the provider
   * documents none. A status value the team lists is never drift.
   */
  drift(endpoint: Endpoint, body: unknown, opts: DriftOptions = {}): Drift[] {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
    const okValue = (body as Record<string, unknown>).ok;
    const schemaName = okValue === true ? this.operation(endpoint).successSchema : 'Refusal';
    const listed = opts.knownStatuses ?? [];
    const found = new Map<string, Drift>();
    const walk = (value: unknown, schema: Schema, path: string): void => {
      const r = this.resolve(schema);
      if (r.knownValues && typeof value === 'string' && !r.knownValues.includes(value) && !listed.includes(value)) {
        found.set(`s${path}=${value}`, { endpoint, kind: 'status', path, value });
      }
      if (Array.isArray(value)) {
        if (r.items) for (const v of value) walk(v, r.items, `${path}[]`);
        return;
      }
      if (typeof value !== 'object' || value === null || r.properties.size === 0) return;
      for (const [key, v] of Object.entries(value)) {
        const sub = r.properties.get(key);
        const subPath = `${path}.${key}`;
        if (sub) walk(v, sub, subPath);
        else found.set(`f${subPath}`, { endpoint, kind: 'field', path: subPath });
      }
    };
    walk(body, this.deref<Schema>({ $ref: `#/components/schemas/${schemaName}` }), '$');
    if (okValue === false) {
      const status = (body as Record<string, unknown>).status;
      if (opts.knownStatuses && typeof status === 'string' && !listed.includes(status))
        found.set(`s$.status=${status}`, { endpoint, kind: 'status', path: '$.status', value: status });
      if (opts.knownHttpStatuses && opts.httpStatus !== undefined && !opts.knownHttpStatuses.includes(opts.httpStatus))
        found.set(`h${opts.httpStatus}`, {
          endpoint,
          kind: 'http',
          path: 'HTTP status',
          value: String(opts.httpStatus),
        });
    }
    return [...found.values()];
  }

  /** Properties, items and known values of a schema, through `$ref` and `allOf`. */
  private resolve(schemaOrRef: Schema | Ref): Resolved {
    const schema = this.deref<Schema>(schemaOrRef);
    const cached = this.resolvedCache.get(schema);
    if (cached) return cached;
    const out: Resolved = { properties: new Map() };
    for (const part of schema.allOf ?? []) {
      const r = this.resolve(part);
      for (const [k, v] of r.properties) out.properties.set(k, mergeSchemas(out.properties.get(k), v));
      out.items ??= r.items;
      out.knownValues ??= r.knownValues;
    }
    for (const [k, v] of Object.entries(schema.properties ?? {})) {
      out.properties.set(k, mergeSchemas(out.properties.get(k), v as Schema));
    }
    if ('items' in schema && schema.items) out.items = schema.items as Schema;
    const known = ext<string[]>(schema, 'x-known-values');
    if (known) out.knownValues = known;
    this.resolvedCache.set(schema, out);
    return out;
  }
}

/** Two schemas for one property (from allOf branches): the later one's known values win. */
function mergeSchemas(a: Schema | undefined, b: Schema): Schema {
  return a ? ({ allOf: [a, b] } as Schema) : b;
}

/** A copy of a schema whose local `$ref`s point into the document registered with ajv. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : absoluteRefs(v),
      ]),
    );
  }
  return value;
}

function componentName(ref: string): string {
  return ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : '';
}

function describeParamError(param: string, err: ErrorObject): string {
  switch (err.keyword) {
    case 'pattern':
      return `${param} must match ${String(err.params.pattern)}`;
    case 'enum':
      return `${param} must be one of ${(err.params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `${param} must be a valid ${String(err.params.format)}`;
    case 'type':
      return `${param} must be ${String(err.params.type)}`;
    default:
      return `${param} ${err.message ?? 'is invalid'}`;
  }
}

const cache = new Map<string, Spec>();

/** Loads and compiles openapi.yaml once per process and path. Throws SpecError on a document it cannot use. */
export function loadSpec(path = DEFAULT_SPEC_PATH): Spec {
  const hit = cache.get(path);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SpecError(`cannot read ${path}: ${(err as Error).message}`);
  }
  const spec = specFromText(text, path);
  cache.set(path, spec);
  return spec;
}

export function specFromText(text: string, source: string): Spec {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new SpecError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || !String((doc as { openapi?: unknown }).openapi).startsWith('3.1')) {
    throw new SpecError(`${source} is not an OpenAPI 3.1 document`);
  }
  return new Spec(doc as OpenAPIV3_1.Document, source);
}

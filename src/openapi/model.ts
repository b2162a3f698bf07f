import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { convertAjvErrors } from '../shared/ajv-issues.js';
import { absoluteRefs, DOC_ID, newAjv, type ValidatorMode } from './ajv.js';
import { derefIn } from './deref.js';
import { type DriftOptions, findDrift } from './drift.js';
import { type FoldedRequest, foldRequest } from './fold.js';
import {
  type ClauseId,
  DocumentError,
  type Drift,
  ENDPOINTS,
  type Endpoint,
  isClauseId,
  isEndpoint,
  isRole,
  METHODS,
  type Method,
  type OperationInfo,
  type ParamInfo,
  type Params,
  type Ref,
  ROLES,
  type Schema,
} from './types.js';
import { SchemaWalker } from './walk.js';

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

/** An extension field of a document node (`x-aliases`, `x-clauses`, ...), read without a schema. */
export function ext<T>(obj: object, key: string): T | undefined {
  return (obj as Record<string, unknown>)[key] as T | undefined;
}

function componentName(ref: string): string {
  return ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : '';
}

/** Validators the build compiled for one document (precompile.ts), by mode and component schema name. */
export type Precompiled = Record<ValidatorMode, Readonly<Record<string, ValidateFunction | undefined>>>;

/**
 * openapi.yaml, loaded and compiled: the API model. Everything that validates a request or a response (gate,
 * probe, simulator, `h2h validate`) goes through one, and its validators are compiled once.
 */
export class ApiModel {
  readonly operations: ReadonlyMap<Endpoint, OperationInfo>;
  readonly walker: SchemaWalker;
  /**
   * ajv for responses and for requests (which coerces), each made when first needed: with the build's validators
   * (`precompiled`) a process makes none, and the probe, which never folds a request, never makes the second.
   */
  private readonly ajvs: Partial<Record<ValidatorMode, Ajv2020>> = {};
  private readonly requestValidators = new Map<Endpoint, ValidateFunction>();
  private readonly successValidators = new Map<Endpoint, ValidateFunction>();
  private readonly envelopeValidator: ValidateFunction;
  private readonly refusalValidator: ValidateFunction;
  private readonly inlineValidators = new WeakMap<object, ValidateFunction>();
  private readonly roots = new Map<string, Ref>();
  private readonly folded = new WeakMap<Params, { endpoint: Endpoint; folded: FoldedRequest }>();

  constructor(
    readonly doc: OpenAPIV3_1.Document,
    readonly source = '(in memory)',
    private readonly precompiled?: Precompiled,
  ) {
    const schemas = doc.components?.schemas;
    if (!schemas) throw new DocumentError(`${source}: components.schemas is missing`);
    this.walker = new SchemaWalker((v) => this.deref(v));
    this.envelopeValidator = this.validator('response', 'Envelope');
    this.refusalValidator = this.validator('response', 'Refusal');
    const ops = new Map<Endpoint, OperationInfo>();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const endpoint = path.split('/').pop() ?? '';
      if (!isEndpoint(endpoint))
        throw new DocumentError(`${source}: path ${path} is not one of ${ENDPOINTS.join(', ')}`);
      const info = this.readOperation(endpoint, path, item ?? {});
      ops.set(endpoint, info);
      if (!schemas[info.requestSchema])
        throw new DocumentError(`${source}: components.schemas.${info.requestSchema} is missing`);
      this.successValidators.set(endpoint, this.validator('response', info.successSchema));
    }
    for (const endpoint of ENDPOINTS) {
      if (!ops.has(endpoint)) throw new DocumentError(`${source}: path /api/${endpoint} is missing`);
    }
    this.operations = ops;
  }

  /** The ajv of a mode, made once when first needed. */
  private ajvFor(mode: ValidatorMode): Ajv2020 {
    let ajv = this.ajvs[mode];
    if (!ajv) {
      ajv = newAjv(mode, this.doc.components?.schemas ?? {});
      this.ajvs[mode] = ajv;
    }
    return ajv;
  }

  /** The validator of a component schema: the build's for this very document, else compiled once by ajv's cache. */
  validator(mode: ValidatorMode, component: string): ValidateFunction {
    const built = this.precompiled?.[mode][component];
    if (built) return built;
    const validate = this.ajvFor(mode).getSchema(`${DOC_ID}#/components/schemas/${component}`);
    if (!validate) throw new DocumentError(`${this.source}: components.schemas.${component} is missing`);
    return validate;
  }

  /** The component schemas whose validators the model uses, by mode: what the build compiles ahead. */
  validatorComponents(): Record<ValidatorMode, string[]> {
    const ops = [...this.operations.values()];
    return {
      response: ['Envelope', 'Refusal', ...ops.map((o) => o.successSchema)],
      request: ops.map((o) => o.requestSchema),
    };
  }

  /**
   * Problems of a value against an inline schema of the document (a media type's `oneOf`, a parameter's
   * schema), its local `$ref`s resolved against the document. Compiled once per schema object.
   */
  inlineErrors(schema: Schema | Ref, value: unknown): string[] {
    let validate = this.inlineValidators.get(schema);
    if (!validate) {
      validate = this.ajvFor('response').compile(absoluteRefs(schema) as object);
      this.inlineValidators.set(schema, validate);
    }
    return validate(value) ? [] : convertAjvErrors(validate.errors ?? [], value).map((i) => `${i.path} ${i.rule}`);
  }

  operation(endpoint: Endpoint): OperationInfo {
    const info = this.operations.get(endpoint);
    if (!info) throw new DocumentError(`unknown endpoint ${endpoint}`);
    return info;
  }

  /** Resolves a local `$ref` (`#/components/...`) in this document; a dangling one is a DocumentError. */
  deref<T extends object>(value: T | Ref): T {
    const out = derefIn<T>(this.doc, value);
    if (out === undefined)
      throw new DocumentError(`${this.source}: $ref ${isRef(value) ? value.$ref : ''} points at nothing`);
    return out;
  }

  private readOperation(endpoint: Endpoint, path: string, item: OpenAPIV3_1.PathItemObject): OperationInfo {
    const operations = {} as Record<Method, OpenAPIV3_1.OperationObject>;
    for (const method of METHODS) {
      const op = item[method.toLowerCase() as 'get' | 'post'];
      if (!op) throw new DocumentError(`${this.source}: ${path} has no ${method}`);
      operations[method] = op;
    }
    const params: ParamInfo[] = (operations.GET.parameters ?? []).map((p) => {
      const param = this.deref<OpenAPIV3_1.ParameterObject>(p);
      const role = ext<string>(param, 'x-role');
      if (!isRole(role))
        throw new DocumentError(
          `${this.source}: parameter ${param.name} of ${path} needs an x-role (${ROLES.join(', ')})`,
        );
      return {
        name: param.name,
        role,
        aliases: ext<string[]>(param, 'x-aliases') ?? [],
        required: param.required === true,
        description: param.description ?? '',
        schema: this.deref<Schema>(param.schema ?? {}),
      };
    });
    const clauses = new Set<ClauseId>();
    for (const op of Object.values(operations)) {
      for (const id of ext<string[]>(op, 'x-clauses') ?? []) {
        if (!isClauseId(id)) throw new DocumentError(`${this.source}: ${path} names unknown clause ${id}`);
        clauses.add(id);
      }
    }
    const body = this.deref<OpenAPIV3_1.RequestBodyObject>(operations.POST.requestBody ?? { content: {} });
    const bodySchema = body.content['application/json']?.schema;
    const requestSchema = isRef(bodySchema) ? componentName(bodySchema.$ref) : '';
    if (!requestSchema) throw new DocumentError(`${this.source}: POST ${path} body must $ref a component schema`);
    const ok = this.deref<OpenAPIV3_1.ResponseObject>(operations.GET.responses?.['200'] ?? { description: '' });
    const oneOf = (ok.content?.['application/json']?.schema as Schema | undefined)?.oneOf ?? [];
    const success = oneOf.find((b) => isRef(b) && componentName(b.$ref) !== 'Refusal');
    if (!success || !isRef(success)) {
      throw new DocumentError(`${this.source}: ${path} 200 response must be oneOf [<result>, Refusal]`);
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

  /** Every name of a canonical parameter of an endpoint, from x-aliases: the canonical one first. */
  namesOf(endpoint: Endpoint, canonical: string): string[] {
    return [canonical, ...(this.operation(endpoint).params.find((p) => p.name === canonical)?.aliases ?? [])];
  }

  /**
   * Aliases folded into canonical names, validated against the endpoint's request schema (fold.ts). Folded once
   * per request object: every check of one exchange asks for its parameters again.
   */
  foldRequest(endpoint: Endpoint, raw: Params): FoldedRequest {
    const known = this.folded.get(raw);
    if (known?.endpoint === endpoint) return known.folded;
    let validate = this.requestValidators.get(endpoint);
    if (!validate) {
      validate = this.validator('request', this.operation(endpoint).requestSchema);
      this.requestValidators.set(endpoint, validate);
    }
    const folded = foldRequest(this.operation(endpoint).params, validate, raw);
    this.folded.set(raw, { endpoint, folded });
    return folded;
  }

  /** ajv errors of the envelope (ENV-1), or [] when the body is a JSON object with boolean ok and string status. */
  envelopeErrors(body: unknown): ErrorObject[] {
    return this.envelopeValidator(body) ? [] : [...(this.envelopeValidator.errors ?? [])];
  }

  /** ajv errors of a success body against the endpoint's result schema. */
  successErrors(endpoint: Endpoint, body: unknown): ErrorObject[] {
    const validate = this.successValidators.get(endpoint);
    if (!validate) throw new DocumentError(`no success validator for ${endpoint}`);
    return validate(body) ? [] : [...(validate.errors ?? [])];
  }

  /** ajv errors of a refusal body against the Refusal schema. */
  refusalErrors(body: unknown): ErrorObject[] {
    return this.refusalValidator(body) ? [] : [...(this.refusalValidator.errors ?? [])];
  }

  /** Fields and status values the document does not name (drift.ts). */
  drift(endpoint: Endpoint, body: unknown, opts: DriftOptions = {}): Drift[] {
    const ok = (body as { ok?: unknown } | null)?.ok === true;
    const name = ok ? this.operation(endpoint).successSchema : 'Refusal';
    let root = this.roots.get(name);
    if (!root) {
      root = { $ref: `#/components/schemas/${name}` };
      this.roots.set(name, root);
    }
    return findDrift(this.walker, root, endpoint, body, opts);
  }
}

import type { OpenAPIV3_1 } from 'openapi-types';
import { derefIn } from '../openapi/deref.js';
import { ApiModel, DocumentError } from '../openapi/load.js';
import { ext } from '../openapi/model.js';
import type { Schema } from '../openapi/types.js';
import { CLAUSE_IDS, METHODS } from '../openapi/types.js';

/** One broken rule of the document, with where it broke. */
export interface LintProblem {
  rule:
    | 'both-methods'
    | 'unique-aliases'
    | 'clauses-attached'
    | 'required-defined'
    | 'examples-valid'
    | 'config-off-explained';
  at: string;
  message: string;
}

/**
 * The toolkit's own rules on openapi.yaml, beside Redocly's. The structural rules read the raw document, so they
 * report even when it cannot be compiled; the example rule needs the compiled validators.
 */
export function lintDocument(doc: OpenAPIV3_1.Document, source = 'openapi.yaml'): LintProblem[] {
  const deref = <T>(v: unknown): T => (derefIn<T>(doc, v) ?? {}) as T;
  const undefinedRequired = requiredDefined(doc);
  const raw = [...bothMethods(doc, deref), ...uniqueAliases(doc, deref), ...clausesAttached(doc), ...undefinedRequired];
  // A schema that requires what it does not define cannot be compiled (ajv's strict mode): reported above, the
  // examples are not checked against it.
  if (undefinedRequired.length) return raw;
  let api: ApiModel;
  try {
    api = new ApiModel(doc, source);
  } catch (err) {
    if (!(err instanceof DocumentError)) throw err;
    return raw.length
      ? raw
      : [{ rule: 'both-methods', at: source, message: `the document cannot be loaded: ${err.message}` }];
  }
  try {
    return [...raw, ...examplesValid(api)];
  } catch (err) {
    // A schema ajv refuses to compile is a problem of the document, never an internal error of lint.
    return [
      ...raw,
      { rule: 'examples-valid', at: source, message: `the schemas cannot be compiled: ${(err as Error).message}` },
    ];
  }
}

/** Every name a schema lists as `required` is one of its `properties` (anywhere in the document). */
function requiredDefined(doc: OpenAPIV3_1.Document): LintProblem[] {
  const out: LintProblem[] = [];
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${at}[${i}]`);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const node = v as Record<string, unknown>;
    // Where the names may come from elsewhere (a composition, open properties), a name is not known to be missing.
    const open = ['allOf', 'anyOf', 'oneOf', 'additionalProperties', 'patternProperties', '$ref'].some(
      (k) => node[k] !== undefined,
    );
    if (Array.isArray(node.required) && !open) {
      const props = (node.properties ?? {}) as Record<string, unknown>;
      for (const name of node.required)
        if (typeof name === 'string' && !Object.hasOwn(props, name))
          out.push({
            rule: 'required-defined',
            at,
            message: `'${name}' is required but not defined in properties (a client cannot know what to send)`,
          });
    }
    for (const [k, x] of Object.entries(node)) if (k !== 'example' && k !== 'examples') walk(x, at ? `${at}.${k}` : k);
  };
  walk(doc.components, 'components');
  walk(doc.paths, 'paths');
  return out;
}

/** A lookup of a `$ref` in the raw document, before the loader has found it valid (its rules run on any document). */
type RawDeref = <T>(v: unknown) => T;
const OPS = (doc: OpenAPIV3_1.Document): [string, string, OpenAPIV3_1.OperationObject][] =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    (['get', 'post'] as const).flatMap((m) =>
      item?.[m] ? [[path, m.toUpperCase(), item[m]] as [string, string, OpenAPIV3_1.OperationObject]] : [],
    ),
  );

/** Every path has GET and POST with the same parameters, aliases and required flags. */
function bothMethods(doc: OpenAPIV3_1.Document, deref: RawDeref): LintProblem[] {
  const out: LintProblem[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (!item?.[method.toLowerCase() as 'get' | 'post']) {
        out.push({ rule: 'both-methods', at: path, message: `${path} has no ${method}` });
      }
    }
    const get = item?.get;
    const post = item?.post;
    if (!get || !post) continue;
    const query = new Map<string, { aliases: string[]; required: boolean }>();
    for (const p of get.parameters ?? []) {
      const param = deref<OpenAPIV3_1.ParameterObject>(p);
      if (param.in !== 'query') {
        out.push({
          rule: 'both-methods',
          at: `${path} GET`,
          message: `parameter ${param.name} is in ${param.in}; every parameter goes in the query`,
        });
      }
      query.set(param.name, {
        aliases: [...(ext<string[]>(param, 'x-aliases') ?? [])].sort(),
        required: param.required === true,
      });
    }
    const body = deref<OpenAPIV3_1.RequestBodyObject>(post.requestBody ?? { content: {} });
    const schema = deref<Schema>(body.content?.['application/json']?.schema ?? {});
    const required = new Set(schema.required ?? []);
    const props = Object.entries(schema.properties ?? {});
    for (const [name, prop] of props) {
      const q = query.get(name);
      const aliases = [...(ext<string[]>(prop, 'x-aliases') ?? [])].sort();
      if (!q) {
        out.push({ rule: 'both-methods', at: `${path} POST`, message: `body field ${name} has no GET parameter` });
        continue;
      }
      if (q.aliases.join(',') !== aliases.join(',')) {
        out.push({
          rule: 'both-methods',
          at: `${path} POST`,
          message: `${name}: GET aliases [${q.aliases.join(', ')}] differ from POST aliases [${aliases.join(', ')}]`,
        });
      }
      if (q.required !== required.has(name)) {
        out.push({
          rule: 'both-methods',
          at: `${path} POST`,
          message: `${name} is ${q.required ? '' : 'not '}required on GET but ${required.has(name) ? '' : 'not '}on POST`,
        });
      }
    }
    for (const name of query.keys()) {
      if (!props.some(([n]) => n === name))
        out.push({ rule: 'both-methods', at: `${path} GET`, message: `GET parameter ${name} has no POST body field` });
    }
  }
  return out;
}

/** Within an operation, every parameter name and alias is used once. */
function uniqueAliases(doc: OpenAPIV3_1.Document, deref: RawDeref): LintProblem[] {
  const out: LintProblem[] = [];
  for (const [path, method, op] of OPS(doc)) {
    if (method !== 'GET') continue;
    const owner = new Map<string, string>();
    for (const p of op.parameters ?? []) {
      const param = deref<OpenAPIV3_1.ParameterObject>(p);
      for (const name of [param.name, ...(ext<string[]>(param, 'x-aliases') ?? [])]) {
        const prev = owner.get(name);
        if (prev !== undefined)
          out.push({ rule: 'unique-aliases', at: path, message: `${name} names both ${prev} and ${param.name}` });
        owner.set(name, param.name);
      }
    }
  }
  return out;
}

/** Every clause id is attached (x-clauses) to at least one operation. */
function clausesAttached(doc: OpenAPIV3_1.Document): LintProblem[] {
  const attached = new Set(OPS(doc).flatMap(([, , op]) => ext<string[]>(op, 'x-clauses') ?? []));
  return CLAUSE_IDS.filter((id) => !attached.has(id)).map((id) => ({
    rule: 'clauses-attached' as const,
    at: 'paths',
    message: `clause ${id} is attached to no operation (x-clauses)`,
  }));
}

/** Every example (parameter, request body, response, schema) validates against its own schema. */
function examplesValid(api: ApiModel): LintProblem[] {
  const out: LintProblem[] = [];
  const check = (at: string, schema: Schema | OpenAPIV3_1.ReferenceObject | undefined, value: unknown): void => {
    if (!schema) return;
    const errors = api.inlineErrors(schema, value);
    if (errors.length)
      out.push({ rule: 'examples-valid', at, message: `example does not validate: ${errors.join('; ')}` });
  };
  const media = (at: string, m: OpenAPIV3_1.MediaTypeObject | undefined): void => {
    if (!m) return;
    if (m.example !== undefined) check(at, m.schema, m.example);
    for (const [name, ex] of Object.entries(m.examples ?? {}))
      check(`${at} examples.${name}`, m.schema, api.deref<OpenAPIV3_1.ExampleObject>(ex).value);
  };
  for (const [path, item] of Object.entries(api.doc.paths ?? {})) {
    for (const method of ['get', 'post'] as const) {
      const op = item?.[method];
      if (!op) continue;
      const at = `${path} ${method.toUpperCase()}`;
      for (const p of op.parameters ?? []) {
        const param = api.deref<OpenAPIV3_1.ParameterObject>(p);
        if (param.example !== undefined)
          check(`${at} parameter ${param.name}`, param.schema, coerceQuery(api, param.schema, param.example));
      }
      if (op.requestBody)
        media(
          `${at} requestBody`,
          api.deref<OpenAPIV3_1.RequestBodyObject>(op.requestBody).content['application/json'],
        );
      for (const [code, r] of Object.entries(op.responses ?? {})) {
        media(`${at} response ${code}`, api.deref<OpenAPIV3_1.ResponseObject>(r).content?.['application/json']);
      }
    }
  }
  for (const [name, schema] of Object.entries(api.doc.components?.schemas ?? {})) {
    for (const [i, ex] of (schema.examples ?? []).entries())
      check(`components.schemas.${name} examples[${i}]`, schema, ex);
  }
  return out;
}

/** A query parameter's example is text on the wire; integers are compared as numbers. */
function coerceQuery(api: ApiModel, schema: Schema | OpenAPIV3_1.ReferenceObject | undefined, value: unknown): unknown {
  if (!schema) return value;
  return api.deref<Schema>(schema).type === 'integer' && typeof value === 'string' ? Number(value) : value;
}

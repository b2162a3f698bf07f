import type { OpenAPIV3_1 } from 'openapi-types';
import type { Spec } from '../spec/load.js';
import { CLAUSE_IDS, METHODS } from '../spec/types.js';

/** One broken rule of the document, with where it broke. */
export interface LintProblem {
  rule: 'both-methods' | 'unique-aliases' | 'clauses-attached' | 'examples-valid';
  at: string;
  message: string;
}

type Schema = OpenAPIV3_1.SchemaObject;

function ext<T>(obj: object, key: string): T | undefined {
  return (obj as Record<string, unknown>)[key] as T | undefined;
}

/** The toolkit's own rules on openapi.yaml, beside Redocly's. */
export function lintDocument(spec: Spec): LintProblem[] {
  return [...bothMethods(spec), ...uniqueAliases(spec), ...clausesAttached(spec), ...examplesValid(spec)];
}

/** Every path has GET and POST with the same parameters, aliases and required flags. */
function bothMethods(spec: Spec): LintProblem[] {
  const out: LintProblem[] = [];
  for (const [path, item] of Object.entries(spec.doc.paths ?? {})) {
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
      const param = spec.deref<OpenAPIV3_1.ParameterObject>(p);
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
    const body = spec.deref<OpenAPIV3_1.RequestBodyObject>(post.requestBody ?? { content: {} });
    const schema = spec.deref<Schema>(body.content['application/json']?.schema ?? {});
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
function uniqueAliases(spec: Spec): LintProblem[] {
  const out: LintProblem[] = [];
  for (const info of spec.operations.values()) {
    const owner = new Map<string, string>();
    for (const p of info.params) {
      for (const name of [p.name, ...p.aliases]) {
        const prev = owner.get(name);
        if (prev !== undefined) {
          out.push({ rule: 'unique-aliases', at: info.path, message: `${name} names both ${prev} and ${p.name}` });
        }
        owner.set(name, p.name);
      }
    }
  }
  return out;
}

/** Every clause id is attached (x-clauses) to at least one operation. */
function clausesAttached(spec: Spec): LintProblem[] {
  const attached = new Set([...spec.operations.values()].flatMap((o) => o.clauses));
  return CLAUSE_IDS.filter((id) => !attached.has(id)).map((id) => ({
    rule: 'clauses-attached' as const,
    at: 'paths',
    message: `clause ${id} is attached to no operation (x-clauses)`,
  }));
}

/** Every example (parameter, request body, response, schema) validates against its own schema. */
function examplesValid(spec: Spec): LintProblem[] {
  const out: LintProblem[] = [];
  const check = (at: string, schema: Schema | OpenAPIV3_1.ReferenceObject | undefined, value: unknown): void => {
    if (!schema) return;
    const errors = spec.inlineErrors(schema, value);
    if (errors.length)
      out.push({ rule: 'examples-valid', at, message: `example does not validate: ${errors.join('; ')}` });
  };
  const media = (at: string, m: OpenAPIV3_1.MediaTypeObject | undefined): void => {
    if (!m) return;
    if (m.example !== undefined) check(at, m.schema, m.example);
    for (const [name, ex] of Object.entries(m.examples ?? {}))
      check(`${at} examples.${name}`, m.schema, spec.deref<OpenAPIV3_1.ExampleObject>(ex).value);
  };
  for (const [path, item] of Object.entries(spec.doc.paths ?? {})) {
    for (const method of ['get', 'post'] as const) {
      const op = item?.[method];
      if (!op) continue;
      const at = `${path} ${method.toUpperCase()}`;
      for (const p of op.parameters ?? []) {
        const param = spec.deref<OpenAPIV3_1.ParameterObject>(p);
        if (param.example !== undefined)
          check(`${at} parameter ${param.name}`, param.schema, coerceQuery(spec, param.schema, param.example));
      }
      if (op.requestBody)
        media(
          `${at} requestBody`,
          spec.deref<OpenAPIV3_1.RequestBodyObject>(op.requestBody).content['application/json'],
        );
      for (const [code, r] of Object.entries(op.responses ?? {})) {
        media(`${at} response ${code}`, spec.deref<OpenAPIV3_1.ResponseObject>(r).content?.['application/json']);
      }
    }
  }
  for (const [name, schema] of Object.entries(spec.doc.components?.schemas ?? {})) {
    for (const [i, ex] of (schema.examples ?? []).entries())
      check(`components.schemas.${name} examples[${i}]`, schema, ex);
  }
  return out;
}

/** A query parameter's example is text on the wire; integers are compared as numbers. */
function coerceQuery(spec: Spec, schema: Schema | OpenAPIV3_1.ReferenceObject | undefined, value: unknown): unknown {
  if (!schema) return value;
  return spec.deref<Schema>(schema).type === 'integer' && typeof value === 'string' ? Number(value) : value;
}

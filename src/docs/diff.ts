import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import { derefIn } from '../openapi/deref.js';
import type { DocNode, Schema } from '../openapi/types.js';
import { type SchemaShape, SchemaWalker } from '../openapi/walk.js';

/** One change between two versions of the document, as client developers see it. */
export interface Change {
  kind: 'breaking' | 'safe';
  what: string;
  at: string;
}

/**
 * Every method a path item of any version may hold (lowercase, as the document writes them): wider than the two the
 * API serves (METHODS of openapi/types.ts), so that a method added or removed in any version is reported.
 */
const DOC_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A document with local $ref resolution; nothing else assumed, so any version of it can be compared. */
class Doc {
  readonly walker: SchemaWalker;
  constructor(readonly doc: OpenAPIV3_1.Document) {
    this.walker = new SchemaWalker((v) => this.deref(v));
  }
  deref<T>(v: unknown): T {
    return (derefIn<T>(this.doc, v) ?? {}) as T;
  }
  /**
   * Parameters of an operation: name -> aliases, required, schema; `defined` is false for a name the body's schema
   * requires without defining it (`h2h lint` reports it): still a parameter every request must now carry.
   */
  params(op: OpenAPIV3_1.OperationObject): Map<string, Param> {
    const out = new Map<string, Param>();
    for (const p of op.parameters ?? []) {
      const param = this.deref<OpenAPIV3_1.ParameterObject>(p);
      out.set(param.name, {
        aliases: ((param as unknown as DocNode)['x-aliases'] as string[] | undefined) ?? [],
        required: param.required === true,
        schema: this.deref<Schema>(param.schema ?? {}),
        defined: true,
      });
    }
    const body = op.requestBody ? this.deref<OpenAPIV3_1.RequestBodyObject>(op.requestBody) : undefined;
    const schema = body?.content?.['application/json']?.schema;
    // Through $ref and allOf, as the walker reads every schema: a body composed of parts has the names of each.
    const shape: SchemaShape = schema
      ? this.walker.shape(schema as Schema)
      : { properties: new Map(), required: new Set() };
    for (const [name, defs] of shape.properties) {
      if (out.has(name)) continue;
      out.set(name, {
        aliases: defs.map((d) => (d as DocNode)['x-aliases'] as string[] | undefined).find(Boolean) ?? [],
        required: shape.required.has(name),
        schema: Object.assign({}, ...defs.map((d) => this.deref<Schema>(d))) as Schema,
        defined: true,
      });
    }
    for (const name of shape.required)
      if (!out.has(name)) out.set(name, { aliases: [], required: true, schema: {}, defined: false });
    return out;
  }
  /**
   * Response fields of a successful answer: path -> {type, required, enum, defined}, through $ref, allOf, oneOf (ok:true
   * branch) and items. A name an object requires without defining it (`h2h lint` reports it) is a field every
   * answer carries, of a type the document does not say (`defined` false).
   */
  fields(op: OpenAPIV3_1.OperationObject): Map<string, Field> {
    const out = new Map<string, Field>();
    const res = this.deref<OpenAPIV3_1.ResponseObject>(op.responses?.['200'] ?? {});
    let schema = this.deref<Schema>(res.content?.['application/json']?.schema ?? {});
    const success = schema.oneOf
      ?.map((b) => this.deref<Schema>(b))
      .find((b) =>
        this.walker
          .shape(b)
          .properties.get('ok')
          ?.some((p) => this.deref<Schema>(p).const === true),
      );
    if (success) schema = success;
    const undefinedRequired = (object: Schema, prefix: string): void => {
      const { properties, required } = this.walker.shape(object);
      for (const name of required)
        if (!properties.has(name)) out.set(`${prefix}.${name}`, { type: 'any', required: true, defined: false });
    };
    undefinedRequired(schema, '$');
    for (const f of this.walker.fields(schema)) {
      const type =
        f.defs.map((d) => (d.type ? String(d.type) : d.const !== undefined ? typeof d.const : '')).find(Boolean) ??
        'any';
      const values = f.defs.map((d) => d.enum?.map(String)).find(Boolean);
      out.set(f.path, { type, required: f.required, defined: true, ...(values ? { values } : {}) });
      // The objects the walker enters (a field's own, or its array's items): their names required, not defined.
      const last = f.defs[f.defs.length - 1] as Schema;
      const isArray = last.type === 'array' && 'items' in last && last.items;
      const nested = isArray ? this.deref<Schema>(last.items as Schema) : last;
      if (nested.properties || nested.allOf || nested.required)
        undefinedRequired(nested, `${f.path}${isArray ? '[]' : ''}`);
    }
    return out;
  }
}

/** A parameter of an operation, as the diff compares it. */
interface Param {
  aliases: string[];
  required: boolean;
  schema: Schema;
  /** False for a name a body's schema requires without defining it: its type and values unknown. */
  defined: boolean;
}

/** A field of a successful answer, as the diff compares it. */
interface Field {
  type: string;
  required: boolean;
  values?: string[];
  /** False for a name an object requires without defining it: its type unknown. */
  defined: boolean;
}

/** The JSON type of a parameter's schema (or of its const), for a type change. */
const baseType = (s: Schema): string => String(s.type ?? (s.const !== undefined ? typeof s.const : 'any'));

/** The bounds of a parameter's schema, and when a new value accepts less than the old one. */
const BOUNDS: [keyof Schema, (after: number, before: number) => boolean][] = [
  ['minimum', (a, b) => a > b],
  ['exclusiveMinimum', (a, b) => a > b],
  ['maximum', (a, b) => a < b],
  ['exclusiveMaximum', (a, b) => a < b],
  ['minLength', (a, b) => a > b],
  ['maxLength', (a, b) => a < b],
];

/**
 * Whether a new pattern accepts every value the old one did (`widened`) or not (`narrowed`). Which strings two
 * regular expressions accept cannot be compared in general: values the old pattern accepts are drawn with
 * fast-check (seeded, so the same documents give the same answer) and tried on the new one; one refused is a
 * narrowing, a client that sent it is broken. The unsure case counts as narrowed.
 */
function patternChange(before: string | undefined, after: string): 'widened' | 'narrowed' {
  if (before === undefined) return 'narrowed';
  try {
    const next = new RegExp(after, 'u');
    const olds = fc.sample(fc.stringMatching(new RegExp(before, 'u')), { numRuns: 300, seed: 42 });
    return olds.every((v) => next.test(v)) ? 'widened' : 'narrowed';
  } catch {
    return 'narrowed';
  }
}

/** What a change says of a name a schema requires without defining it (`h2h lint`'s required-defined). */
const UNDEFINED = ' (not defined in properties: its type unknown)';

/**
 * Breaking and safe changes from OLD to NEW, for clients of the API. A name a schema requires without defining it
 * counts as what it is on the wire: a parameter every request must carry (added: breaking), a field every answer
 * carries (added: safe, an addition).
 */
export function diffDocuments(oldDoc: OpenAPIV3_1.Document, newDoc: OpenAPIV3_1.Document): Change[] {
  const a = new Doc(oldDoc);
  const b = new Doc(newDoc);
  const out: Change[] = [];
  const add = (kind: Change['kind'], at: string, what: string): void => {
    out.push({ kind, at, what });
  };
  const oldPaths = oldDoc.paths ?? {};
  const newPaths = newDoc.paths ?? {};
  for (const path of Object.keys(newPaths)) if (!(path in oldPaths)) add('safe', path, 'endpoint added');
  for (const [path, oldItem] of Object.entries(oldPaths)) {
    const newItem = newPaths[path];
    if (!newItem) {
      add('breaking', path, 'endpoint removed');
      continue;
    }
    for (const m of DOC_METHODS) {
      const o = oldItem?.[m];
      const n = newItem[m];
      const at = `${m.toUpperCase()} ${path}`;
      if (o && !n) add('breaking', at, 'method removed');
      if (!o && n) add('safe', at, 'method added');
      if (!o || !n) continue;
      const op = a.params(o);
      const np = b.params(n);
      for (const [name, q] of np) {
        const p = op.get(name);
        if (!p)
          add(
            q.required ? 'breaking' : 'safe',
            at,
            `parameter ${name} added${q.required ? ' as required' : ' (optional)'}${q.defined ? '' : UNDEFINED}`,
          );
      }
      for (const [name, p] of op) {
        const q = np.get(name);
        if (!q) {
          add('breaking', at, `parameter ${name} removed`);
          continue;
        }
        for (const alias of p.aliases)
          if (!q.aliases.includes(alias)) add('breaking', at, `alias ${alias} of ${name} removed`);
        for (const alias of q.aliases)
          if (!p.aliases.includes(alias)) add('safe', at, `alias ${alias} of ${name} added`);
        if (!p.required && q.required) add('breaking', at, `parameter ${name} made required`);
        if (p.required && !q.required) add('safe', at, `parameter ${name} made optional`);
        if (baseType(p.schema) !== baseType(q.schema))
          add('breaking', at, `parameter ${name} type changed from ${baseType(p.schema)} to ${baseType(q.schema)}`);
        const pe = p.schema.enum?.map(String);
        const qe = q.schema.enum?.map(String);
        if (pe && qe) {
          const gone = pe.filter((v) => !qe.includes(v));
          const added = qe.filter((v) => !pe.includes(v));
          if (gone.length)
            add('breaking', at, `parameter ${name} enum narrowed: ${gone.join(', ')} no longer accepted`);
          if (added.length) add('safe', at, `parameter ${name} enum widened: ${added.join(', ')} accepted`);
        } else if (!pe && qe) add('breaking', at, `parameter ${name} restricted to ${qe.join(', ')}`);
        if (p.schema.pattern !== q.schema.pattern && q.schema.pattern) {
          const change = patternChange(p.schema.pattern, q.schema.pattern);
          if (change === 'narrowed') add('breaking', at, `parameter ${name} pattern changed to ${q.schema.pattern}`);
          else add('safe', at, `parameter ${name} pattern widened to ${q.schema.pattern}`);
        }
        for (const [key, tighter] of BOUNDS) {
          const before = p.schema[key] as number | undefined;
          const after = q.schema[key] as number | undefined;
          if (after === undefined || before === after) continue;
          if (before === undefined || tighter(after, before))
            add('breaking', at, `parameter ${name} ${key} ${before === undefined ? 'set' : 'tightened'} to ${after}`);
          else add('safe', at, `parameter ${name} ${key} loosened to ${after}`);
        }
      }
      const of = a.fields(o);
      const nf = b.fields(n);
      for (const [path2, f] of of) {
        const g = nf.get(path2);
        // A definition removed whose name stays required is removed all the same: its type is gone.
        if (!g || (f.defined && !g.defined)) {
          add('breaking', at, `response field ${path2} removed`);
          continue;
        }
        if (!f.defined && g.defined) add('safe', at, `response field ${path2} now defined as ${g.type}`);
        else if (f.type !== g.type)
          add('breaking', at, `response field ${path2} type changed from ${f.type} to ${g.type}`);
        if (f.required && !g.required) add('breaking', at, `response field ${path2} no longer always present`);
        if (f.values && g.values) {
          const added = g.values.filter((v) => !f.values?.includes(v));
          const gone = f.values.filter((v) => !g.values?.includes(v));
          if (added.length) add('breaking', at, `response field ${path2} may now carry ${added.join(', ')}`);
          if (gone.length) add('safe', at, `response field ${path2} enum narrowed: ${gone.join(', ')} no longer sent`);
        }
      }
      for (const [path2, g] of nf)
        if (!of.has(path2))
          add('safe', at, `response field ${path2} added${g.defined ? '' : `, always present${UNDEFINED}`}`);
    }
  }
  return out;
}

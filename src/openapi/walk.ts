import type { Ref, Schema } from './types.js';

/** Resolves a local `$ref`; the document's own deref, or a lenient one for a document under review. */
export type Deref = <T extends object>(value: T | Ref) => T;

/** What a schema says about an object, through `$ref` and `allOf`. */
export interface SchemaShape {
  /** Each property's definitions, bases first (a later one adds to an earlier one). */
  properties: Map<string, Schema[]>;
  required: Set<string>;
  /** The schema of an array's items. */
  items?: Schema;
  /** `x-known-values` of a string: values that are not drift. */
  knownValues?: string[];
}

/** One field of a flattened object schema. */
export interface SchemaField {
  /** `$.detail.member`, `$.data[].date` */
  path: string;
  name: string;
  /** The field's definitions, resolved, bases first. */
  defs: Schema[];
  required: boolean;
}

/**
 * The one schema walker: drift (openapi/drift.ts), the Markdown reference and the diff (docs/) read schemas
 * through it. Shapes are cached per schema object (pass one cache per document).
 */
export class SchemaWalker {
  private readonly cache = new WeakMap<object, SchemaShape>();

  constructor(private readonly deref: Deref) {}

  shape(schemaOrRef: Schema | Ref | readonly (Schema | Ref)[]): SchemaShape {
    const key = schemaOrRef as object;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const parts = Array.isArray(schemaOrRef) ? schemaOrRef : [schemaOrRef];
    const out: SchemaShape = { properties: new Map(), required: new Set() };
    for (const part of parts) {
      const schema = this.deref<Schema>(part as Schema | Ref);
      for (const sub of schema.allOf ?? []) this.merge(out, this.shape(sub as Schema));
      this.merge(out, {
        properties: new Map(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, [v as Schema]])),
        required: new Set(schema.required ?? []),
        ...('items' in schema && schema.items ? { items: schema.items as Schema } : {}),
        ...(knownValuesOf(schema) ? { knownValues: knownValuesOf(schema) } : {}),
      });
    }
    this.cache.set(key, out);
    return out;
  }

  /** The shape of one property, from all its definitions. */
  propertyShape(defs: readonly Schema[]): SchemaShape {
    return this.shape(defs);
  }

  /** Every field of an object schema, nested objects and array items included, depth first. */
  fields(schemaOrRef: Schema | Ref, prefix = '$', out: SchemaField[] = []): SchemaField[] {
    const { properties, required } = this.shape(schemaOrRef);
    for (const [name, raw] of properties) {
      const defs = raw.map((d) => this.deref<Schema>(d));
      const path = `${prefix}.${name}`;
      out.push({ path, name, defs, required: required.has(name) });
      const last = defs[defs.length - 1] as Schema;
      const isArray = last.type === 'array' && 'items' in last && last.items;
      const nested = isArray ? this.deref<Schema>(last.items as Schema) : last;
      if (nested.properties || nested.allOf) this.fields(nested, `${path}${isArray ? '[]' : ''}`, out);
    }
    return out;
  }

  private merge(into: SchemaShape, from: SchemaShape): void {
    for (const [k, v] of from.properties) into.properties.set(k, [...(into.properties.get(k) ?? []), ...v]);
    for (const r of from.required) into.required.add(r);
    if (from.items) into.items = from.items;
    if (from.knownValues) into.knownValues = from.knownValues;
  }
}

function knownValuesOf(schema: Schema): string[] | undefined {
  return (schema as Record<string, unknown>)['x-known-values'] as string[] | undefined;
}

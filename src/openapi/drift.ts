import type { OpenAPIV3_1 } from 'openapi-types';
import type { Drift, Endpoint } from './types.js';
import type { SchemaWalker } from './walk.js';

/** What a team knows of its provider beyond the document: listed values are never drift. */
export interface DriftOptions {
  /** Status words the provider is known to use (refusals and transaction states). */
  knownStatuses?: readonly string[];
  /** HTTP statuses the provider is known to give refusals. */
  knownHttpStatuses?: readonly number[];
  /** The HTTP status of the answer, compared with `knownHttpStatuses`. */
  httpStatus?: number;
}

/**
 * Fields and status values that the document does not name, in a body that has the envelope, walked beside
 * the schema of its branch (`root`). Array indices are folded so each unnamed field is reported once. A
 * refusal's status word and HTTP status are drift only against the lists a team gives: the provider documents
 * none. A status value the team lists is never drift.
 */
export function findDrift(
  walker: SchemaWalker,
  root: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject,
  endpoint: Endpoint,
  body: unknown,
  opts: DriftOptions = {},
): Drift[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const listed = opts.knownStatuses ?? [];
  const found = new Map<string, Drift>();
  const walk = (value: unknown, shape: ReturnType<SchemaWalker['shape']>, path: string): void => {
    if (shape.knownValues && typeof value === 'string' && !shape.knownValues.includes(value) && !listed.includes(value))
      found.set(`s${path}=${value}`, { endpoint, kind: 'status', path, value });
    if (Array.isArray(value)) {
      if (shape.items) for (const v of value) walk(v, walker.shape(shape.items), `${path}[]`);
      return;
    }
    if (typeof value !== 'object' || value === null || shape.properties.size === 0) return;
    for (const [key, v] of Object.entries(value)) {
      const defs = shape.properties.get(key);
      const subPath = `${path}.${key}`;
      if (defs) walk(v, walker.propertyShape(defs), subPath);
      else found.set(`f${subPath}`, { endpoint, kind: 'field', path: subPath });
    }
  };
  walk(body, walker.shape(root), '$');
  const b = body as Record<string, unknown>;
  if (b.ok === false) {
    if (opts.knownStatuses && typeof b.status === 'string' && !listed.includes(b.status))
      found.set(`s$.status=${b.status}`, { endpoint, kind: 'status', path: '$.status', value: b.status });
    if (opts.knownHttpStatuses && opts.httpStatus !== undefined && !opts.knownHttpStatuses.includes(opts.httpStatus))
      found.set(`h${opts.httpStatus}`, { endpoint, kind: 'http', path: 'HTTP status', value: String(opts.httpStatus) });
  }
  return [...found.values()];
}

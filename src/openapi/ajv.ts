import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { cjsDefault } from '../shared/cjs.js';
import { ajv2020, ajvFormats } from '../shared/lazy.js';

/** Vendor extensions this toolkit reads; ajv is told about them so strict mode stays on. */
export const EXTENSION_KEYWORDS = [
  'x-aliases',
  'x-assumption',
  'x-known-values',
  'x-clauses',
  'x-secret',
  'x-phone',
  'x-role',
] as const;

/** The `$id` under which the document's components are registered with ajv. */
export const DOC_ID = 'h2h:openapi';

/** Validators for responses as they are, and for requests (whose parameters ajv coerces from text). */
export type ValidatorMode = 'response' | 'request';

/**
 * A fresh Ajv (draft 2020-12, strict, all errors, formats) that knows the document's component schemas. `source`
 * keeps each validator's code, for ajv's standalone output (the build's validators, precompile.ts).
 */
export function newAjv(
  mode: ValidatorMode,
  schemas: Record<string, OpenAPIV3_1.SchemaObject> = {},
  opts: { source?: boolean } = {},
): Ajv2020 {
  const ajv = new (ajv2020().Ajv2020)({
    allErrors: true,
    strict: true,
    coerceTypes: mode === 'request',
    useDefaults: false,
    ...(opts.source ? { code: { source: true } } : {}),
  });
  cjsDefault<(ajv: Ajv2020) => Ajv2020>(ajvFormats())(ajv);
  for (const keyword of [...EXTENSION_KEYWORDS, 'components']) ajv.addKeyword({ keyword });
  ajv.addSchema({ $id: DOC_ID, components: { schemas } });
  return ajv;
}

/** A copy of a schema whose local `$ref`s point into the document registered with ajv. */
export function absoluteRefs(value: unknown): unknown {
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

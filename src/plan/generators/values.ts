import type { OpenAPIV3_1 } from 'openapi-types';
import type { ApiModel } from '../../openapi/load.js';
import type { Endpoint, Method } from '../../openapi/types.js';
import { OPERATORS, type Operator, operatorValues } from './operators.js';
import { DIGIT_SCRIPTS, inScript, type RoleSeed } from './roles.js';

/** One value of a parameter at or just past a constraint of its schema. */
export interface BoundaryValue {
  value: unknown;
  /** What it is, for titles and failure lines: `prefix 07`, `one character past maxLength 64`. */
  label: string;
  /** Whether openapi.yaml's request schema accepts it (the document's validator decides, not this file). */
  valid: boolean;
  /** An identifier that names no existing record (roles.ts): a lookup of it must not find one. */
  unknownId?: true;
  /** The methods that can carry it (all when absent). */
  methods?: readonly Method[];
}

/** The digits of other scripts a pattern's values take (roles.ts's list): Arabic-Indic and full-width. */
const PATTERN_SCRIPTS = DIGIT_SCRIPTS.filter(([, script]) => script === 'Arabic-Indic' || script === 'full-width');

/**
 * The coverage phase's values of a parameter, derived from its schema in openapi.yaml: for a pattern, a
 * sweep of two-digit prefixes (where it opens with two-digit literals), one below and above a numeric range
 * (a month), the shortest and longest valid
 * length and one past each (found by the document's validator), non-ASCII digits, spaces inside and around, a
 * leading `+`, a letter; for an enum, each value, case variants, empty, whitespace, near words; for a date,
 * an impossible one, other separators, one-digit parts; for lengths, at and past each bound; for an integer,
 * the minimum, one below, a fraction, a padded string, a very large number. `sample` is a valid value (from the
 * target's data or config); each value is classified by the document's own request validator. Then the values of
 * every operator that applies to the parameter (operators.ts: its role's classes, every other JSON type, ...), made
 * from `seed` (by default the sample).
 */
export function boundaryValues(
  api: ApiModel,
  endpoint: Endpoint,
  name: string,
  sample: unknown,
  seed: RoleSeed = { value: String(sample ?? '') },
  operators: readonly Operator[] = OPERATORS,
): BoundaryValue[] {
  const out = new Map<string, BoundaryValue>();
  for (const b of schemaValues(api, endpoint, name, sample)) out.set(JSON.stringify(b.value), b);
  const valid = validIn(api, endpoint, name);
  for (const v of operatorValues(schemaOf(api, endpoint, name), seed, operators)) {
    const key = JSON.stringify(v.value);
    if (out.has(key)) continue;
    out.set(key, {
      value: v.value,
      label: v.label,
      valid: valid(v.value),
      ...(v.unknownId ? { unknownId: true as const } : {}),
      ...(v.methods ? { methods: v.methods } : {}),
    });
  }
  return [...out.values()];
}

/** The parameter of an endpoint, as openapi.yaml declares it. */
function schemaOf(api: ApiModel, endpoint: Endpoint, name: string) {
  const param = api.operation(endpoint).params.find((p) => p.name === name);
  if (!param) throw new Error(`${endpoint} has no parameter ${name}`);
  return param;
}

/** Whether the document's request validator accepts a value of the parameter. */
function validIn(api: ApiModel, endpoint: Endpoint, name: string): (v: unknown) => boolean {
  return (v) =>
    !api.foldRequest(endpoint, { [name]: v }).problems.some((p) => p.param === name && p.code !== 'missing');
}

/**
 * The schema's edges of a parameter for one sample, each classified by the validator: the same for every scenario
 * and run of a document, and costly (a year's ranges ask the validator ten thousand times), so kept per document.
 */
const SCHEMA_VALUES = new WeakMap<ApiModel, Map<string, readonly BoundaryValue[]>>();

function schemaValues(api: ApiModel, endpoint: Endpoint, name: string, sample: unknown): readonly BoundaryValue[] {
  const cache = SCHEMA_VALUES.get(api) ?? new Map<string, readonly BoundaryValue[]>();
  SCHEMA_VALUES.set(api, cache);
  const key = JSON.stringify([endpoint, name, sample ?? null]);
  const hit = cache.get(key);
  if (hit) return hit;
  const valid = validIn(api, endpoint, name);
  const out = new Map<string, BoundaryValue>();
  const add = (value: unknown, label: string): void => {
    const k = JSON.stringify(value);
    if (!out.has(k)) out.set(k, { value, label, valid: valid(value) });
  };
  schemaEdges(schemaOf(api, endpoint, name).schema as OpenAPIV3_1.SchemaObject, sample, add, valid);
  const values = [...out.values()].map((b) => Object.freeze(b));
  cache.set(key, values);
  return values;
}

/** An enum's values and their near misses: case, spaces, a letter less or more; empty and a word outside. */
function enumEdges(values: readonly unknown[], add: (value: unknown, label: string) => void): void {
  for (const e of values) {
    const v = String(e);
    add(v, `enum value ${v}`);
    add(v.toUpperCase(), `${v} in upper case`);
    add(v[0]?.toUpperCase() + v.slice(1), `${v} capitalised`);
    add(` ${v}`, `${v} after a space`);
    add(`${v} `, `${v} before a space`);
    add(v.slice(0, -1), `${v} less its last letter`);
    add(`${v}s`, `${v} and one letter more`);
  }
  add('', 'empty');
  add(' ', 'a space');
  add('family', 'a word outside the enum');
}

/**
 * An integer's minimum and one below it, and letters: what its schema gives. The rest of a count's edges (negative,
 * fractions, padding, overflow) are its role's classes (roles.ts), written once there.
 */
function integerEdges(schema: OpenAPIV3_1.SchemaObject, add: (value: unknown, label: string) => void): void {
  const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
  add(min, `the minimum ${min}`);
  add(min - 1, `one below the minimum ${min}`);
  add(`0${min}`, 'a zero-padded string');
  add('abc', 'letters');
}

/** A date's impossible days and months and its other spellings. */
function dateEdges(s: string, add: (value: unknown, label: string) => void): void {
  const [y, m, d] = s.split('-');
  add(`${y}-02-30`, 'an impossible date');
  add(`${y}-13-01`, 'month 13');
  add(`${y}/${m}/${d}`, 'slashes');
  add(`${y}.${m}.${d}`, 'dots');
  add(`${y}-${Number(m)}-${Number(d)}`, 'one-digit parts');
  add(`${d}-${m}-${y}`, 'day first');
  add(`${y}-${m}`, 'no day');
}

/** A digit string under a pattern: other prefixes, ranges, lengths, other digits, spaces and signs. */
function patternEdges(
  pattern: string,
  s: string,
  add: (value: unknown, label: string) => void,
  valid: (v: unknown) => boolean,
): void {
  // A pattern that opens with two-digit literals (`^(08|62)`): every other two-digit prefix.
  if (/^\d{2}/.test(s) && /^\^\((\d\d\|)*\d\d\)/.test(pattern))
    for (let p = 0; p < 100; p++)
      add(`${String(p).padStart(2, '0')}${s.slice(2)}`, `prefix ${String(p).padStart(2, '0')}`);
  // A short number whose valid values form ranges (a month): one below and one above each range.
  if (/^\d{1,4}$/.test(s)) {
    const width = s.length;
    let inside = false;
    for (let n = 0; n <= 10 ** width; n++) {
      const v = String(n).padStart(width, '0');
      const ok = n < 10 ** width && valid(v);
      if (ok && !inside && n > 0) add(String(n - 1).padStart(width, '0'), `one below the range from ${v}`);
      if (!ok && inside && n < 10 ** width) add(v, `one above the range up to ${String(n - 1).padStart(width, '0')}`);
      inside = ok;
    }
    add(String(Number(s)), 'without its leading zeros');
  }
  // The shortest and longest valid length, and one past each, as the validator finds them.
  const lengths: number[] = [];
  for (let n = 1; n <= 24; n++) if (valid(s.slice(0, n).padEnd(n, s.at(-1) ?? '0'))) lengths.push(n);
  const shortest = lengths[0];
  const longest = lengths.at(-1);
  if (shortest !== undefined && longest !== undefined) {
    const at = (n: number): string => s.slice(0, n).padEnd(n, s.at(-1) ?? '0');
    add(at(shortest), `the shortest valid length ${shortest}`);
    add(at(shortest - 1), `one shorter than ${shortest}`);
    add(at(longest), `the longest valid length ${longest}`);
    add(at(longest + 1), `one longer than ${longest}`);
  }
  if (s.startsWith('0')) add(s.slice(1), 'its leading zero dropped');
  for (const [zero, script] of PATTERN_SCRIPTS) {
    add(inScript(s, zero, true), `${script} digits`);
    // One such digit among ASCII ones: a provider that converts digits before it checks lets it through.
    add(inScript(s, zero, false), `one ${script} digit at the end`);
  }
  add(`${s.slice(0, 2)} ${s.slice(2)}`, 'a space inside');
  add(` ${s}`, 'a space before');
  add(`${s} `, 'a space after');
  add(`+${s}`, 'a leading +');
  add(`${s.slice(0, -1)}a`, 'a letter at the end');
}

/** The values at and just past each constraint of a schema (see boundaryValues), each given to `add`. */
function schemaEdges(
  schema: OpenAPIV3_1.SchemaObject,
  sample: unknown,
  add: (value: unknown, label: string) => void,
  valid: (v: unknown) => boolean,
): void {
  const s = String(sample ?? '');
  if (schema.enum) {
    enumEdges(schema.enum, add);
    return;
  }
  if (schema.type === 'integer') {
    integerEdges(schema, add);
    return;
  }
  if (s) add(s, 'a valid value');
  // Every text parameter, empty: a provider may read it as absent, or as a value, and must do so alike by GET and
  // POST (a query's `msisdn=` and a body's "msisdn": "") and under every name.
  if (schema.type === 'string') add('', 'empty');
  if (schema.format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(s)) dateEdges(s, add);
  if (schema.pattern && /^\d/.test(s)) patternEdges(schema.pattern, s, add, valid);
  if (typeof schema.minLength === 'number') {
    add('', schema.minLength > 0 ? `empty (minLength ${schema.minLength})` : 'empty');
    add('x'.repeat(schema.minLength || 1), `at minLength ${schema.minLength}`);
  }
  if (typeof schema.maxLength === 'number') {
    add('x'.repeat(schema.maxLength), `at maxLength ${schema.maxLength}`);
    add('x'.repeat(schema.maxLength + 1), `one past maxLength ${schema.maxLength}`);
    add('ÿ'.repeat(Math.min(schema.maxLength, 8)), 'non-ASCII letters');
  }
}

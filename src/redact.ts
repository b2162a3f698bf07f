/**
 * The one place that hides keys and phone numbers. Every output (console, reports, attachments, logs, metrics,
 * status pages, saved failures) passes through these functions.
 *
 * What is hidden comes from openapi.yaml, not from a list written here: the names of the parameters it marks
 * `x-secret` (the key, with every alias), and the fields and parameters whose schema it marks `x-phone`
 * (msisdn and its aliases, manager and member numbers). A value seen under one of those names is learned, so
 * that it is hidden wherever else it appears too (a number inside an answer's `message`). Keys given to the
 * program, and values derived from them, are registered by whoever holds them. Nothing else is touched: a
 * balance or an ID that happens to begin with 62 stays as it is.
 */

import type { OpenAPIV3_1 } from 'openapi-types';
import { type ApiModel, loadApiModel } from './openapi/load.js';
import { to08, to62 } from './openapi/numbers.js';
import type { Schema } from './openapi/types.js';
import { UsageError } from './shared/config-file.js';

const MASK = '***';

/**
 * `H2H_UNSAFE_DISABLE_REDACTION=1` turns every function here into the identity: only so that the leak test can
 * show it would find a leak. The CLI says so on stderr when it is set.
 */
export const REDACTION_DISABLED = process.env.H2H_UNSAFE_DISABLE_REDACTION === '1';

/** `scheme://user:password@host`: the userinfo of any URL in a text, hidden by structure. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@"'<>]+@/gi;

/** The names whose values openapi.yaml marks secret or personal. */
export interface RedactionNames {
  secret: ReadonlySet<string>;
  phone: ReadonlySet<string>;
}

const flag = (node: unknown, name: string): boolean => (node as Record<string, unknown> | undefined)?.[name] === true;

/** Secret and phone names of a document: parameters (with their aliases) and schema properties. */
export function namesFromDocument(api: ApiModel): RedactionNames {
  const secret = new Set<string>();
  const phone = new Set<string>();
  for (const op of api.operations.values()) {
    for (const p of op.params) {
      const raw = (op.operations.GET.parameters ?? [])
        .map((x) => api.deref<OpenAPIV3_1.ParameterObject>(x))
        .find((x) => x.name === p.name);
      const names = [p.name, ...p.aliases];
      if (flag(raw, 'x-secret') || flag(p.schema, 'x-secret')) for (const n of names) secret.add(n);
      if (flag(raw, 'x-phone') || flag(p.schema, 'x-phone')) for (const n of names) phone.add(n);
    }
  }
  for (const schema of Object.values(api.doc.components?.schemas ?? {})) {
    const shape = api.walker.shape(schema as Schema);
    for (const [name, defs] of shape.properties) {
      const resolved = defs.map((d) => api.deref<Schema>(d));
      if (defs.some((d) => flag(d, 'x-phone')) || resolved.some((d) => flag(d, 'x-phone'))) phone.add(name);
      if (defs.some((d) => flag(d, 'x-secret')) || resolved.some((d) => flag(d, 'x-secret'))) secret.add(name);
    }
  }
  return { secret, phone };
}

let names: RedactionNames | undefined;
let patterns: { keyInQuery: RegExp; keyInJson: RegExp; phoneInQuery: RegExp; phoneInJson: RegExp } | undefined;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function current(): NonNullable<typeof patterns> {
  names ??= namesFromDocument(loadApiModel());
  if (!patterns) {
    const secret = [...names.secret].map(escapeRegExp).join('|') || '(?!)';
    const phone = [...names.phone].map(escapeRegExp).join('|') || '(?!)';
    // A value never runs past its line: a text cut inside a string (an evidence line ending in `…`) must not
    // take the lines after it, up to the next quote, for its value.
    const jsonValue = '"(?:[^"\\\\\\n]|\\\\.)*"|-?\\d[\\d.eE+-]*';
    patterns = {
      keyInQuery: new RegExp(`((?:^|[?&\\s])(?:${secret})=)[^&#\\s"']*`, 'gi'),
      keyInJson: new RegExp(`("(?:${secret})"[ \\t]*:[ \\t]*)(?:${jsonValue})`, 'gi'),
      phoneInQuery: new RegExp(`((?:^|[?&\\s])(?:${phone})=)([^&#\\s"']*)`, 'gi'),
      phoneInJson: new RegExp(`("(?:${phone})"[ \\t]*:[ \\t]*)"([^"\\\\\\n]*)"`, 'gi'),
    };
  }
  return patterns;
}

/** Takes the secret and phone names from this document (a test's copy of openapi.yaml, say). */
export function useDocument(api: ApiModel): void {
  names = namesFromDocument(api);
  patterns = undefined;
}

/** The names in use. */
export function redactionNames(): RedactionNames {
  current();
  return names as RedactionNames;
}

const secrets = new Set<string>();
/** The values registered themselves (each with its encodings in `secrets`): a second registration costs nothing. */
const registered = new Set<string>();
/** The registered secrets as one alternation, longest first: made when first needed after a registration. */
let secretPattern: RegExp | undefined;
const phones = new Set<string>();
/**
 * A whole run of at least 7 digits (a match starts at a run's first digit and takes it all); redact() masks it when
 * it is a known number, which registerPhone keeps to 7 to 16 digits. No lookbehind: it was half the cost.
 */
const DIGIT_RUN = /\d{7,}/g;

/** Values seen under a key's name that are no key: hiding them would hide the words of every report. */
const NOT_SECRETS = new Set(['true', 'false', 'null', 'undefined']);

/**
 * Registers a key (or a value derived from one) so that it is hidden wherever it appears, in every encoding. Too
 * short a value (under 6 characters) or a JSON word sent as a key on purpose (`api_key: true`) is no secret to hide.
 */
export function registerSecret(secret: string | undefined): void {
  if (!secret || registered.has(secret) || secret.length < 6 || NOT_SECRETS.has(secret.toLowerCase())) return;
  registered.add(secret);
  const size = secrets.size;
  secrets.add(secret);
  secrets.add(encodeURIComponent(secret));
  secrets.add(new URLSearchParams({ k: secret }).toString().slice(2));
  secrets.add(JSON.stringify(secret).slice(1, -1));
  if (secrets.size !== size) secretPattern = undefined;
}

/** Registers a phone number, in its 08- and 62-form, so that it is masked wherever it appears. */
export function registerPhone(number: string | number | undefined): void {
  // The international form (+62...) is the same number: its digits are registered in every form.
  const s = to62(String(number ?? '').trim());
  if (!/^\d{7,16}$/.test(s)) return;
  for (const form of new Set([s, to08(s)])) {
    phones.add(form);
  }
}

/** A number as maskPhone shows it: its first four characters, stars, its last three digits. */
const MASKED_PHONE = /(?<![\w*])(\+62|62|0)([0-9]{1,3})\*+[0-9]{3}(?![\w*])/g;

/**
 * Every masked phone number of a text (maskPhone's form) replaced by a made-up number of the same form and length,
 * all zeros after the form's prefix: a file that keeps examples (the provider's reading) shows each number's form,
 * never a digit of a real one.
 */
export function madeUpPhones(text: string): string {
  return text.replace(MASKED_PHONE, (m, prefix: string) => {
    const head = prefix === '0' ? '08' : `${prefix}8`;
    return head + '0'.repeat(Math.max(0, m.length - head.length));
  });
}

/** Masks the middle of a phone number: 6281234567890 -> 6281******890. */
export function maskPhone(number: string): string {
  if (number.length <= 7) return '*'.repeat(number.length);
  return `${number.slice(0, 4)}${'*'.repeat(number.length - 7)}${number.slice(-3)}`;
}

/** Every registered secret in a text hidden, in one pass, the longest first (a key's near misses hold the key). */
function hideSecrets(text: string): string {
  if (!secrets.size) return text;
  secretPattern ??= new RegExp(
    [...secrets]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return text.replace(secretPattern, MASK);
}

/**
 * Hides the userinfo of URLs, registered keys, any value of a secret name in a query string or JSON text
 * (string or number), and phone numbers: under a phone name, and every number learned or registered, wherever it stands.
 */
export function redact(text: string): string {
  if (REDACTION_DISABLED) return text;
  const p = current();
  // Each pattern only where it can match (a body is redacted thousands of times a run): a URL's `://`, a query's `=`.
  let out = text.includes('://') ? text.replace(USERINFO, `$1${MASK}@`) : text;
  // Every registered secret in one pass, the longest first (a key's near misses hold the key: dozens of them).
  out = hideSecrets(out);
  if (out.includes('=')) {
    out = out.replace(p.keyInQuery, `$1${MASK}`);
    out = out.replace(p.phoneInQuery, (_m, name: string, value: string) => `${name}${maskPhone(value)}`);
  }
  out = out.replace(p.keyInJson, `$1"${MASK}"`);
  out = out.replace(p.phoneInJson, (_m, name: string, value: string) => `${name}"${maskPhone(value)}"`);
  // Every whole run of digits that is a known number, looked up in the set: one pass whatever the count of
  // numbers learned (a busy account's history holds tens of thousands).
  if (phones.size) out = out.replace(DIGIT_RUN, (m) => (m.length <= 16 && phones.has(m) ? maskPhone(m) : m));
  return out;
}

/** Learns the phone numbers a value holds under phone names (an answer, a request), for redact(). */
export function learnPhones(value: unknown): void {
  const { phone } = redactionNames();
  const walk = (v: unknown, key?: string): void => {
    if (key !== undefined && phone.has(key) && (typeof v === 'string' || typeof v === 'number')) registerPhone(v);
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(value);
}

/**
 * Learns the keys a value holds under secret names (a captured request, say), string or number, so that they
 * are hidden wherever else they appear too (echoed in an answer's field, in a finding's `got`).
 */
export function learnSecrets(value: unknown): void {
  const { secret } = redactionNames();
  const walk = (v: unknown, key?: string): void => {
    if (key !== undefined && secret.has(key) && (typeof v === 'string' || typeof v === 'number'))
      registerSecret(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(value);
}

/**
 * A deep copy of a value: secret names hidden (and learned), phone names masked (and learned), every string redacted,
 * the names of its fields too (a key sent as a parameter's name is still the key).
 */
export function redactValue<T>(value: T): T {
  if (REDACTION_DISABLED) return value;
  learnSecrets(value);
  learnPhones(value);
  const { secret, phone } = redactionNames();
  const walk = (v: unknown, key?: string): unknown => {
    if (key !== undefined && secret.has(key) && v !== undefined && v !== '') return MASK;
    if (key !== undefined && phone.has(key) && (typeof v === 'string' || typeof v === 'number')) {
      // A key sent under a phone name is a key: hidden whole, never masked as a number that shows 7 of its characters.
      const text = String(v);
      const hidden = hideSecrets(text);
      return hidden === text ? maskPhone(text) : hidden;
    }
    if (typeof v === 'string') return redact(v);
    // A key of digits sent as a JSON number, under any name.
    if (typeof v === 'number' && secrets.has(String(v))) return MASK;
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * Where a parsed config file holds a value under a secret name (`api_key` or any alias the document gives it),
 * as paths like `targets[0].api_key`: a config file never holds a key.
 */
export function secretFieldsIn(value: unknown): string[] {
  const { secret } = redactionNames();
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const here = path ? `${path}.${k}` : k;
        if (secret.has(k)) out.push(here);
        else walk(x, here);
      }
  };
  walk(value, '');
  return out;
}

/**
 * A config file never holds a key: any field named `api_key` or one of its aliases (from openapi.yaml) gets
 * this message, before the schema's generic "unknown field", and the value is never repeated.
 */
export function refuseKeyInFile(raw: unknown, path: string | undefined): void {
  const found = secretFieldsIn(raw);
  if (path && found.length)
    throw new UsageError(
      `config file ${path}: never put the key in a config file (found ${found.map((f) => `'${f}'`).join(', ')}); use api_key_file (a file only you can read) or api_key_env (an environment variable)`,
    );
}

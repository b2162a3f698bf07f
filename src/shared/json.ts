/**
 * The deepest nesting of arrays and objects a JSON text may have before it is read. The API's answers are four
 * levels deep; past this a value is no answer of it, and every recursive reader (ajv, the walkers, redaction,
 * JSON.stringify) would overflow the stack on it.
 */
export const MAX_JSON_DEPTH = 64;

/** A JSON text read: its value, or why it is not one (`problem`) without any value. */
export type JsonRead =
  | { value: unknown; problem?: undefined }
  | { value?: undefined; problem: string; kind: 'depth' | 'syntax' };

/**
 * Whether a text nests arrays and objects deeper than `max`, counted over its characters without building
 * anything (brackets inside strings are not counted): one pass, stopped at the first level past `max`.
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The one bounded JSON reader of an answer or a captured file: a byte-order mark before the JSON is dropped, a
 * text nested deeper than MAX_JSON_DEPTH is refused before it is parsed, a text that is not JSON says so. With
 * `share`, flat objects equal to one read before are that same object (shareFlat).
 */
export function readJson(text: string, opts: { share?: boolean } = {}): JsonRead {
  const t = text.replace(/^\uFEFF/, '');
  if (nestsDeeperThan(t)) return { problem: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, kind: 'depth' };
  try {
    return { value: (opts.share ? JSON.parse(t, shareFlat) : JSON.parse(t)) as unknown };
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message.split('\n')[0]}`, kind: 'syntax' };
  }
}

/** Flat objects read before, by the first long string among their values (a record's trx_id, say). */
const seen = new Map<string, object[]>();
let seenCount = 0;
/** Past this many, the table starts again (it never holds more than one account's records or so). */
const SEEN_MAX = 300_000;

/**
 * A JSON.parse reviver that gives back, for a flat object (every value a string, number, boolean or null) equal
 * to one read before, that first object: a run that reads the same 100,000 records in several answers holds them
 * once. Objects are found by the first string of 8 characters or more among their values (an ID), then compared
 * field by field, so nothing is built per object. Nothing in the toolkit writes into a parsed answer, so sharing
 * is safe.
 */
function shareFlat(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  let id: string | undefined;
  let fields = 0;
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null) return value;
    if (id === undefined && typeof v === 'string' && v.length >= 8) id = v;
    fields++;
  }
  if (id === undefined) return value;
  const candidates = seen.get(id);
  if (candidates)
    for (const c of candidates as Record<string, unknown>[]) {
      let same = Object.keys(c).length === fields;
      for (const k in o) if (!same || c[k] !== o[k]) same = false;
      if (same) return c;
    }
  if (seenCount >= SEEN_MAX) {
    seen.clear();
    seenCount = 0;
  }
  if (candidates) candidates.push(o);
  else seen.set(id, [o]);
  seenCount++;
  return value;
}

/** Whether a value is a JSON object (not an array, not null). */
export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

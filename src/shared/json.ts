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
 * text nested deeper than MAX_JSON_DEPTH is refused before it is parsed, a text that is not JSON says so.
 */
export function readJson(text: string): JsonRead {
  const t = text.replace(/^\uFEFF/, '');
  if (nestsDeeperThan(t)) return { problem: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, kind: 'depth' };
  try {
    return { value: JSON.parse(t) as unknown };
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message.split('\n')[0]}`, kind: 'syntax' };
  }
}

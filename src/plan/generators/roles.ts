import { to62 } from '../../openapi/numbers.js';
import type { Method, Role } from '../../openapi/types.js';
import { swapCase } from '../../shared/letter-case.js';

/**
 * The value classes of every role a parameter can have (`x-role` in openapi.yaml), derived from what the value
 * is for rather than from its schema: a secret is compared, an identifier looked up, a phone number parsed, a
 * text matched, a count counted. Each class is one way a real implementation gets that use wrong (a key
 * compared after trimming, a search run as SQL LIKE, a count read as "no limit"); the coverage phase sends every
 * class under every name of the parameter, by both methods, in every place the value is used.
 *
 * What the answer must be is the clauses' to say, never this file's: a class says only what the value is. A
 * secret's near miss is a wrong key (AUTH-1 judges); an identifier's variant that is no existing ID is an
 * unknown ID (TRX-2 judges); a phone number is judged by INV-3's own words on its characters (demands.ts); the
 * rest are judged by what the answer itself can break (HIS-2 on a count, HIS-4 on a text that holds a number's
 * digits, ENV-1 and ENV-4 on every answer).
 */
export interface RoleValue {
  value: unknown;
  /** What it is, for titles and failure lines; never the value itself (a key's near miss is a secret). */
  label: string;
  /** An identifier that names no existing record: a lookup of it must not find one (TRX-2). */
  unknownId?: true;
  /** Methods that can carry the value as it is (a JSON array goes only in a POST body). */
  methods?: readonly Method[];
}

/** What a role's classes are made from: a valid value, and the values that exist (IDs an account holds). */
export interface RoleSeed {
  value: string;
  /** Values that exist: a class equal to one of them is no unknown ID. */
  existing?: ReadonlySet<string>;
  /**
   * More valid values of other kinds (an ID of every kind the account shows): each class takes the first, in turn
   * from its own place in the list, that it can be made from (a case variant needs letters).
   */
  others?: readonly string[];
}

/** Control characters a comparison may strip, from either end: each is its own class. */
const CONTROLS: readonly [string, string][] = [
  ['\n', 'a line feed'],
  ['\r', 'a carriage return'],
  ['\r\n', 'CR LF'],
  ['\t', 'a tab'],
  ['\0', 'a NUL'],
  ['\v', 'a vertical tab'],
  ['\f', 'a form feed'],
  ['\x1c', 'a file separator (U+001C)'],
  ['\x1f', 'a unit separator (U+001F)'],
  ['\x7f', 'a DEL'],
  ['\x85', 'a next line (U+0085)'],
];

/** Unicode spaces and invisible characters a Unicode-aware trim or normalisation removes. */
const SPACES: readonly [string, string][] = [
  ['\u00a0', 'a no-break space'],
  ['\u2003', 'an em space'],
  ['\u3000', 'an ideographic space'],
  ['\u200b', 'a zero-width space'],
  ['\ufeff', 'a byte order mark'],
  ['\u2028', 'a line separator'],
];

/** Latin letters and the Cyrillic letters that look the same. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  a: 'а',
  c: 'с',
  e: 'е',
  o: 'о',
  p: 'р',
  x: 'х',
  y: 'у',
  A: 'А',
  B: 'В',
  C: 'С',
  E: 'Е',
  H: 'Н',
  K: 'К',
  M: 'М',
  O: 'О',
  P: 'Р',
  T: 'Т',
  X: 'Х',
};

const percent = (c: string): string =>
  [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** Full-width forms of printable ASCII (U+FF01..U+FF5E): NFKC folds them back. */
const fullWidth = (s: string): string =>
  [...s]
    .map((c) => (c > ' ' && c <= '~' ? String.fromCodePoint((c.codePointAt(0) as number) - 0x21 + 0xff01) : c))
    .join('');

/** The value with its first Latin letter that has a look-alike replaced by it, or undefined. */
function homoglyph(s: string): string | undefined {
  const i = [...s].findIndex((c) => HOMOGLYPHS[c] !== undefined);
  if (i < 0) return undefined;
  const chars = [...s];
  chars[i] = HOMOGLYPHS[chars[i] as string] as string;
  return chars.join('');
}

/** The value with the letter case of its first (or last) letter flipped, or undefined without letters. */
function oneLetterFlipped(s: string, from: 'first' | 'last'): string | undefined {
  const chars = [...s];
  const idx = chars.map((c, i) => (c.toLowerCase() !== c.toUpperCase() ? i : -1)).filter((i) => i >= 0);
  const i = from === 'first' ? idx[0] : idx.at(-1);
  if (i === undefined) return undefined;
  chars[i] = swapCase(chars[i] as string);
  return chars.join('');
}

/**
 * Near misses of a secret: each control character and Unicode space at an end, percent-escapes a second decoding
 * would undo, letter case, truncation, extension, one character changed, other scripts (full-width forms, a
 * look-alike letter), and other JSON types. None is the key; a provider that accepts one compares more loosely
 * than its callers think.
 */
function secretClasses(key: string): RoleValue[] {
  const other = (c: string | undefined): string => (c === 'x' ? 'y' : 'x');
  const out: (Omit<RoleValue, 'value'> & { value: unknown })[] = [
    ...CONTROLS.map(([c, name]) => ({ value: `${key}${c}`, label: `${name} after it` })),
    ...CONTROLS.filter(([c]) => ['\n', '\t', '\0'].includes(c)).map(([c, name]) => ({
      value: `${c}${key}`,
      label: `${name} before it`,
    })),
    { value: `${key}\0x`, label: 'a NUL and more after it (a C string ends at the NUL)' },
    ...SPACES.map(([c, name]) => ({ value: `${key}${c}`, label: `${name} after it` })),
    { value: `\ufeff${key}`, label: 'a byte order mark before it' },
    { value: ` ${key} `, label: 'spaces around it' },
    { value: `${percent(key[0] ?? 'x')}${key.slice(1)}`, label: 'its first character percent-encoded' },
    { value: [...key].map(percent).join(''), label: 'every character percent-encoded' },
    { value: `${key}%0A`, label: 'an encoded line feed after it' },
    { value: encodeURIComponent(encodeURIComponent(`${key} /`)), label: 'encoded twice, with more after it' },
    { value: swapCase(key), label: 'its letter case flipped' },
    { value: oneLetterFlipped(key, 'first'), label: 'the case of its first letter flipped' },
    { value: oneLetterFlipped(key, 'last'), label: 'the case of its last letter flipped' },
    { value: key.slice(0, -1), label: 'its last character dropped' },
    { value: key.slice(1), label: 'its first character dropped' },
    { value: key.slice(0, Math.ceil(key.length / 2)), label: 'its first half' },
    { value: `${key}x`, label: 'a character appended' },
    { value: `x${key}`, label: 'a character prepended' },
    { value: `${key}${key}`, label: 'twice over' },
    { value: `${key.slice(0, -1)}${other(key.at(-1))}`, label: 'its last character changed' },
    { value: `${other(key[0])}${key.slice(1)}`, label: 'its first character changed' },
    { value: fullWidth(key), label: 'in full-width forms (NFKC folds them back)' },
    { value: homoglyph(key), label: 'a letter replaced by its Cyrillic look-alike' },
  ];
  return out.filter((c) => c.value !== undefined && c.value !== key && c.value !== '');
}

/**
 * Variants of an existing transaction ID. Those that name another ID (cut, extended, a wildcard of SQL LIKE,
 * a regular expression or a glob in place of a character, a look-alike letter, another letter case) must not
 * find the record (TRX-2); those a provider may read as the same ID once it trims its input (whitespace around
 * it) are judged by the answer alone.
 */
function identifierClasses(seed: RoleSeed): RoleValue[] {
  const ids = [seed.value, ...(seed.others ?? [])].filter((v) => v !== '');
  const half = (id: string): string => id.slice(0, Math.max(1, Math.floor(id.length / 2)));
  const variants: [(id: string) => string | undefined, string, boolean][] = [
    [(id) => id.slice(0, -1), 'an existing ID less its last character', true],
    [(id) => id.slice(1), 'an existing ID less its first character', true],
    [(id) => `${id}0`, 'an existing ID and one character more', true],
    [(id) => `${id.slice(0, -1)}_`, "an existing ID with SQL LIKE's `_` for its last character", true],
    [(id) => `${half(id)}%`, "the first half of an existing ID and SQL LIKE's `%`", true],
    [(id) => `${id.slice(0, -1)}.`, 'an existing ID with a regular expression `.` for its last character', true],
    [(id) => `${half(id)}.*`, 'the first half of an existing ID and a regular expression `.*`', true],
    [(id) => `${id.slice(0, -1)}?`, "an existing ID with a glob's `?` for its last character", true],
    [(id) => `${half(id)}*`, "the first half of an existing ID and a glob's `*`", true],
    [homoglyph, 'an existing ID with a letter replaced by its Cyrillic look-alike', true],
    [fullWidth, 'an existing ID in full-width forms', true],
    // A case-insensitive collation (MySQL's default) finds the record: the ID asked for was never used.
    [(id) => swapCase(id), 'an existing ID in flipped letter case', true],
    [(id) => oneLetterFlipped(id, 'last'), 'an existing ID with the case of its last letter flipped', true],
    [(id) => ` ${id} `, 'an existing ID with spaces around it', false],
    [(id) => `${id}\n`, 'an existing ID and a line feed', false],
  ];
  return variants.flatMap(([make, label, unknownId], i) => {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[(i + k) % ids.length] as string;
      const value = make(id);
      if (value === undefined || value === id || (unknownId && seed.existing?.has(value))) continue;
      return [unknownId ? { value, label, unknownId: true as const } : { value, label }];
    }
    return [];
  });
}

/**
 * Digits of other scripts that are not ASCII digits (INV-3 names such digits): each script is a class. The one list:
 * the coverage phase's patterns take their digits from it too (values.ts).
 */
export const DIGIT_SCRIPTS: readonly [number, string][] = [
  [0x0660, 'Arabic-Indic'],
  [0x06f0, 'extended Arabic-Indic'],
  [0x0966, 'Devanagari'],
  [0x0e50, 'Thai'],
  [0xff10, 'full-width'],
  [0x1d7ce, 'mathematical bold (outside the BMP)'],
];

/** `s` with its ASCII digits (all, or only the last character) in the script whose zero is `zero`. */
export function inScript(s: string, zero: number, all: boolean): string {
  return [...s]
    .map((c, i) => ((all || i === s.length - 1) && /\d/.test(c) ? String.fromCodePoint(zero + Number(c)) : c))
    .join('');
}

/**
 * A phone number written the other ways people write one: the international `+62` form, separators, brackets,
 * whitespace and invisible characters, digits of other scripts. INV-3 says which must be refused (anything but
 * ASCII digits after 08 or 62); the class only writes the number.
 */
function phoneClasses(number: string): RoleValue[] {
  if (!/^\d{9,}$/.test(number)) return [];
  const f62 = to62(number);
  const grouped = (sep: string): string => `${number.slice(0, 4)}${sep}${number.slice(4, 8)}${sep}${number.slice(8)}`;
  return [
    { value: `+${f62}`, label: 'in international form (+62)' },
    { value: `00${f62}`, label: 'with the international call prefix 00' },
    { value: grouped('-'), label: 'grouped with hyphens' },
    { value: grouped('.'), label: 'grouped with dots' },
    { value: grouped(' '), label: 'grouped with spaces' },
    { value: `(${number.slice(0, 4)})${number.slice(4)}`, label: 'with its area part in brackets' },
    { value: `${number}\n`, label: 'and a line feed' },
    { value: `\t${number}`, label: 'after a tab' },
    { value: `${number.slice(0, 4)}\u200b${number.slice(4)}`, label: 'with a zero-width space inside' },
    { value: `${number}\u00a0`, label: 'and a no-break space' },
    ...DIGIT_SCRIPTS.flatMap(([zero, script]) => [
      { value: inScript(number, zero, true), label: `in ${script} digits` },
      { value: inScript(number, zero, false), label: `with its last digit in ${script}` },
    ]),
  ];
}

/**
 * A number's digits (nine or more, as history shows one) with the pattern characters of SQL LIKE, regular
 * expressions and globs in them, escaped and not, and characters that break a query built by hand. Text
 * matched literally finds no record for most; a provider that matches by pattern answers records the text does
 * not occur in, which HIS-4 judges (nine digits in a row are no product's).
 */
function matchTextClasses(number: string): RoleValue[] {
  if (!/^\d{11,}$/.test(number)) return [];
  const head = number.slice(0, -2);
  const last = number.slice(-1);
  const beforeLast = number.slice(0, -1);
  return [
    { value: `${beforeLast}_`, label: "a number with SQL LIKE's `_` for its last digit" },
    { value: `${head}%${last}`, label: "a number with SQL LIKE's `%` in place of a digit" },
    { value: `${head}%`, label: "a number's first digits and SQL LIKE's `%`" },
    { value: `${beforeLast}\\_`, label: 'a number with an escaped `\\_` for its last digit' },
    { value: `${beforeLast}[_]`, label: 'a number with a bracketed `[_]` for its last digit' },
    { value: `${beforeLast}.`, label: 'a number with a regular expression `.` for its last digit' },
    { value: `${head}.*${last}`, label: 'a number with a regular expression `.*` in place of a digit' },
    { value: `${beforeLast}[0-9]`, label: 'a number with a regular expression class `[0-9]` for its last digit' },
    { value: `^${beforeLast}`, label: 'a number anchored with `^`, less its last digit' },
    { value: `${head}*${last}`, label: "a number with a glob's `*` in place of a digit" },
    { value: `${beforeLast}?`, label: "a number with a glob's `?` for its last digit" },
    { value: `${number}'`, label: 'a number and a single quote' },
    { value: `${number}"`, label: 'a number and a double quote' },
    { value: `${number}' OR '1'='1`, label: 'a number and a quoted OR' },
    { value: `${number}\\`, label: 'a number and a backslash' },
  ];
}

/**
 * A count at its edges: none, one, negative, fractional, huge (past 32 bits, past 2^53), and the spellings an
 * integer takes in text (leading zeros, a plus sign, spaces, an exponent, empty). HIS-2 judges the whole numbers
 * (0 asks for no records); the others are judged by the answer alone.
 */
function countClasses(): RoleValue[] {
  return [
    { value: 0, label: '0' },
    { value: '0', label: '0 as text' },
    { value: 1, label: '1' },
    { value: -1, label: '-1' },
    { value: 1.5, label: 'a fraction' },
    { value: 2 ** 31, label: '2^31' },
    { value: 2 ** 32, label: '2^32 (0 in 32 bits)' },
    { value: 10 ** 12, label: 'a very large number' },
    { value: 2 ** 53 + 2, label: 'past 2^53' },
    { value: '05', label: 'with a leading zero' },
    { value: '+5', label: 'with a plus sign' },
    { value: ' 5', label: 'after a space' },
    { value: '1e1', label: 'in exponent form' },
    { value: '', label: 'empty' },
  ];
}

/**
 * A member's name in what people are called: letters of other scripts, right-to-left text, an emoji outside the
 * Basic Multilingual Plane, combining marks, quotes and markup, a control character, a long one. No clause says a
 * name must be accepted; every answer keeps the envelope, and a carried-out invite its own clauses.
 */
function nameClasses(): RoleValue[] {
  return [
    { value: 'Sri Wahyuni', label: 'two words' },
    { value: 'Zoë Ñúñez', label: 'Latin letters with accents' },
    { value: 'محمد', label: 'right-to-left Arabic letters' },
    { value: 'Ani 😀', label: 'an emoji (outside the Basic Multilingual Plane)' },
    { value: 'e\u0301\u0301', label: 'combining marks' },
    { value: '王小明', label: 'Chinese characters' },
    { value: 'O\'Brien "Bo"', label: 'quotes' },
    { value: '<b>Ani</b>&amp;', label: 'markup' },
    { value: 'Ani\nBudi', label: 'a line feed inside' },
    { value: 'A'.repeat(300), label: '300 characters' },
  ];
}

/**
 * The classes of one role for one seed; roles whose edges their schema gives in full (enum, date, month, year,
 * product) add none here (values.ts derives those).
 */
export function roleValues(role: Role, seed: RoleSeed): RoleValue[] {
  switch (role) {
    case 'secret':
      return secretClasses(seed.value);
    case 'identifier':
      return identifierClasses(seed);
    case 'phone':
      return phoneClasses(seed.value);
    case 'match-text':
      return matchTextClasses(seed.value);
    case 'count':
      return countClasses();
    case 'name':
      return nameClasses();
    default:
      return [];
  }
}

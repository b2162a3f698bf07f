import { randomBytes } from 'node:crypto';
import { defaultValue } from '../shared/settings.js';

/**
 * What transaction IDs the provider accepts, as far as the run's own IDs go: at most `maxLength` characters of
 * `chars` (`alnum`: letters and digits; `upper`: upper-case letters and digits; `digits`). Providers in this
 * market commonly accept 20 letters and digits, so that is the default; long or unusual IDs go out only in the
 * cases that judge a refusal or an echo (`unusualTrxIds`).
 */
export interface TrxRule {
  maxLength: number;
  chars: 'alnum' | 'upper' | 'digits';
}

export const TRX_CHARS = ['alnum', 'upper', 'digits'] as const;
/** The rule without --trx-id-length or --trx-id-chars: the settings table's defaults. */
export const DEFAULT_TRX_RULE: TrxRule = {
  maxLength: defaultValue('trx-id-length'),
  chars: defaultValue('trx-id-chars'),
};
/** The shortest maximum a rule may set: an ID of the run needs room for the run, the worker and a count. */
export const SHORTEST_TRX_MAX = 12;

/**
 * The kinds of transaction ID the run's own IDs take in turn, so that every kind the rule allows is invited,
 * looked up and searched: upper case, lower case, digits only, mixed case.
 */
export const TRX_KINDS = ['upper', 'lower', 'digits', 'mixed'] as const;
export type TrxKind = (typeof TRX_KINDS)[number];

/** The kinds a rule allows, in the order the run's IDs take them. */
export function kindsOf(rule: TrxRule): readonly TrxKind[] {
  if (rule.chars === 'digits') return ['digits'];
  if (rule.chars === 'upper') return ['upper', 'digits'];
  return TRX_KINDS;
}

/** The kind of a transaction ID, as TRX_KINDS names them, `longest` at 64 characters, `other` for the rest. */
export function trxKind(id: string): TrxKind | 'longest' | 'other' {
  if (id.length === 64) return 'longest';
  if (/[^A-Za-z0-9]/.test(id)) return 'other';
  if (/^[0-9]+$/.test(id)) return 'digits';
  const upper = /[A-Z]/.test(id);
  const lower = /[a-z]/.test(id);
  if (upper && lower) return 'mixed';
  if (lower) return 'lower';
  if (upper) return 'upper';
  return 'other';
}

/** A new run id: the time in base 36 (8 characters) and 2 random ones, upper case; two runs never share one. */
export function newRunId(): string {
  const random = randomBytes(2).readUInt16BE(0) % 36 ** 2;
  return `${Date.now().toString(36)}${random.toString(36).padStart(2, '0')}`.toUpperCase();
}

/** The run id in digits: the same number in base 10. */
function digitsOf(runId: string): string {
  return BigInt(
    [...runId.toLowerCase()].reduce((n, c) => n * 36n + BigInt(Number.parseInt(c, 36) || 0), 0n),
  ).toString();
}

/**
 * One ID of a kind: a letter mark, the run id, the process's tag (letters and digits) and a count, the run id cut
 * from the left (its slowest-changing digits) when the rule's length needs it.
 */
export function trxIdOfKind(kind: TrxKind, runId: string, tag: string, n: number, rule = DEFAULT_TRX_RULE): string {
  const count = String(n).padStart(4, '0');
  const fit = (mark: string, run: string, t: string): string =>
    `${mark}${run.slice(Math.max(0, mark.length + run.length + t.length + count.length - rule.maxLength))}${t}${count}`;
  const digitTag = String(Number.parseInt(tag, 36) || 0).padStart(2 * tag.length, '0');
  switch (kind) {
    case 'upper':
      return fit('H', runId.toUpperCase(), tag.toUpperCase());
    case 'lower':
      return fit('h', runId.toLowerCase(), tag.toLowerCase());
    case 'digits':
      return fit('9', digitsOf(runId), digitTag);
    case 'mixed':
      return fit('Hx', runId.toLowerCase(), tag.toUpperCase());
  }
}

/**
 * Transaction IDs unique to a run: each call takes the next kind the rule allows, in turn. `tag` (a character or
 * two) keeps apart the processes of one run (each Playwright worker, `h2h replay`). One factory per process.
 */
export function trxFactory(runId: string, tag: string, rule: TrxRule = DEFAULT_TRX_RULE): () => string {
  const kinds = kindsOf(rule);
  let n = 0;
  return () => {
    n++;
    return trxIdOfKind(kinds[(n - 1) % kinds.length] as TrxKind, runId, tag, n, rule);
  };
}

/**
 * Transaction IDs of shapes the rule may not allow, for the cases that judge an echo (INV-1, TRX-1): the longest
 * openapi.yaml assumes (64), punctuation, lower case with hyphens. A provider may refuse them; one it carries out
 * must say each back as sent. Each is made from a fresh ID of the run, so it is as unique as that one.
 */
export function unusualTrxIds(fresh: readonly string[]): { label: string; id: string }[] {
  const [a = 'X', b = 'Y', c = 'Z'] = fresh;
  return [
    { label: '64 characters', id: `${a}-`.padEnd(64, 'L') },
    { label: 'punctuation', id: `${b.slice(0, 8)}_${b.slice(8)}.x-1` },
    { label: 'lower case with hyphens', id: `${c.toLowerCase().slice(0, 6)}-${c.toLowerCase().slice(6)}-u` },
  ];
}

/** A seed for the generated cases, when none is given. */
export function newSeed(): number {
  return randomBytes(4).readUInt32BE(0) & 0x7fffffff;
}

import { randomBytes } from 'node:crypto';

/** A new run id for transaction IDs: `H2H` + time + random, so two runs never collide. */
export function newRunId(): string {
  return `H2H${Date.now().toString(36).toUpperCase()}${randomBytes(2).toString('hex').toUpperCase()}`;
}

/**
 * The kinds of transaction ID the run's own IDs take in turn, so that every kind the document allows (any string
 * of 1 to 64 characters) is sent, invited and looked up: upper case, lower case, digits only, mixed case, and at
 * the length bound of 64.
 */
export const TRX_KINDS = ['upper', 'lower', 'digits', 'mixed', 'longest'] as const;
export type TrxKind = (typeof TRX_KINDS)[number];

/** The longest transaction ID openapi.yaml allows. */
const LONGEST = 64;

/** The kind of a transaction ID, as TRX_KINDS names them (`other` for anything else). */
export function trxKind(id: string): TrxKind | 'other' {
  if (id.length === LONGEST) return 'longest';
  if (/^[0-9]+$/.test(id)) return 'digits';
  const upper = /[A-Z]/.test(id);
  const lower = /[a-z]/.test(id);
  if (upper && lower) return 'mixed';
  if (lower) return 'lower';
  if (upper) return 'upper';
  return 'other';
}

/** Digits that stand for a run id (base 36, digit by digit): the digits-only IDs stay unique to the run. */
function digitsOf(prefix: string): string {
  return [...prefix.toLowerCase()].map((c) => parseInt(c, 36).toString().padStart(2, '0')).join('');
}

/** One ID of a kind from a prefix unique to the run and a counter. */
export function trxIdOfKind(kind: TrxKind, prefix: string, n: number): string {
  const count = String(n).padStart(4, '0');
  switch (kind) {
    case 'upper':
      return `${prefix.toUpperCase()}-${count}`;
    case 'lower':
      return `${prefix.toLowerCase()}-${count}`;
    case 'digits':
      return `${digitsOf(prefix)}${count}`.slice(-40);
    case 'mixed':
      return `${prefix.toUpperCase().slice(0, 3)}x${prefix.toLowerCase().slice(3)}Q${count}`;
    case 'longest':
      return `${prefix.toUpperCase()}-${count}-`.padEnd(LONGEST, 'L');
  }
}

/**
 * Transaction IDs unique to a run: each call takes the next kind in turn (TRX_KINDS), `<prefix>-0001` upper case,
 * `<prefix>-0002` lower case, then digits only, mixed case, 64 characters. One factory per process.
 */
export function trxFactory(prefix: string): () => string {
  let n = 0;
  return () => {
    n++;
    return trxIdOfKind(TRX_KINDS[(n - 1) % TRX_KINDS.length] as TrxKind, prefix, n);
  };
}

/** A seed for the generated cases, when none is given. */
export function newSeed(): number {
  return randomBytes(4).readUInt32BE(0) & 0x7fffffff;
}

import type { Fault } from './fault.js';

/**
 * Breaches at the crossings of a class and a place: a value class the gate once sent in one place only (whitespace
 * around an ID to lookups, not to an invite's own trx_id), a record kind only a lookup shows.
 */
export const CROSSING_FAULTS = [
  {
    name: 'trx-trimmed-after-check',
    clause: 'INV-5',
    // The invite of the ID with a space was carried out as that ID, and no lookup of it finds it (INV-6).
    also: ['INV-6'],
    description:
      'an invite checks its trx_id for reuse as sent but stores it trimmed: a used ID with a space around it creates a second transaction of that ID',
  },
  {
    name: 'kind-array-coerced',
    clause: 'INV-4',
    description:
      'an invite whose kind is a JSON array of one word (["akrab"]) takes that word as the kind: the invite is carried out and charged',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member'
        ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, names('kind').includes(k) ? firstWord(v) : v]))
        : raw,
  },
  {
    name: 'alias-member-empty',
    clause: 'INV-6',
    description:
      'an invite whose msisdn came under an alias (`number`, `nomor`) is carried out, but recorded with an empty member_number',
  },
  {
    name: 'q-matches-name',
    clause: 'HIS-4',
    description: "history's q also matches the member's name, a field HIS-4 does not list",
  },
  {
    name: 'credit-without-kind',
    clause: 'BAL-2',
    description: 'an invite without kind (optional: the product says it) credits the balance by its price',
  },
  {
    name: 'lookup-refunded-list',
    clause: 'TRX-1',
    description:
      'cek-trx-id answers a REFUNDED transaction (a status history does not show) with data as a list of its one record',
  },
] as const satisfies readonly Fault[];

/**
 * Fault `kind-array-coerced`: a JSON array of one word read as that word. The body's array arrives as one value of
 * its parameter (params.ts keeps it whole, inside the list of a name's values).
 */
function firstWord(v: unknown): unknown {
  const one = Array.isArray(v) && v.length === 1 && Array.isArray(v[0]) ? v[0] : v;
  return Array.isArray(one) && one.length === 1 && typeof one[0] === 'string' ? one[0] : v;
}

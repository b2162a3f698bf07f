/**
 * Phone numbers in the forms the provider writes them: 08-form (national, `0812...`), 62-form (`62812...`, what
 * the description calls "62-prefixed") and the international `+62812...`, which is the 62-form with a plus. The one
 * place these forms are made; every room that compares or masks numbers uses it.
 */

/**
 * An msisdn the API takes: digits only, beginning with 08 or 62, 9 to 14 digits in all. The pattern of openapi.yaml's
 * Msisdn schema, whose x-assumption says the same in words (test/assumptions.test.ts keeps the three equal); the
 * gate's --msisdn check and the simulator's fixtures use it.
 */
export const MSISDN_PATTERN = '^(08|62)[0-9]{7,12}$';
export const MSISDN = new RegExp(MSISDN_PATTERN);
/** The rule in words, for an error message. */
export const MSISDN_RULE = 'digits only, beginning with 08 or 62, 9 to 14 digits in all';

/** A number in 62-form: 08xxxx becomes 628xxxx, +62xxxx becomes 62xxxx; anything else is returned as is. */
export function to62(number: unknown): string {
  const s = String(number ?? '').replace(/^\+(?=62)/, '');
  return s.startsWith('0') ? `62${s.slice(1)}` : s;
}

/** A number in 08-form: 62xxxx and +62xxxx become 0xxxx; anything else is returned as is. */
export function to08(number: unknown): string {
  const s = to62(number);
  return s.startsWith('62') ? `0${s.slice(2)}` : s;
}

/** The form a number is written in: `08`, `62`, `+62`, or `other` (none of the provider's forms). */
export function numberForm(number: unknown): '08' | '62' | '+62' | 'other' {
  const s = String(number ?? '');
  return s.startsWith('08') ? '08' : s.startsWith('62') ? '62' : s.startsWith('+62') ? '+62' : 'other';
}

/** A phone number in 08-form and in 62-form. */
export function forms(msisdn: unknown): { f08: string; f62: string } {
  return { f08: to08(msisdn), f62: to62(msisdn) };
}

import { to62 } from './numbers.js';
import type { Exchange } from './types.js';

/** A JSON object body. */
export type Body = Record<string, unknown>;

/** The body as an object, or undefined when it is not a JSON object. */
export function bodyOf(ex: Exchange): Body | undefined {
  const b = ex.body;
  return typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Body) : undefined;
}

/** The records of a successful history answer, or undefined. */
export function records(ex: Exchange): Body[] | undefined {
  const body = bodyOf(ex);
  if (body?.ok !== true || !Array.isArray(body.data)) return undefined;
  return body.data.filter((r): r is Body => typeof r === 'object' && r !== null);
}

/** The documented fields of a history record (HIS-1): what a record is, wherever the gate takes one. */
export const RECORD_FIELDS = ['trx_id', 'manager_number', 'member_number', 'date'] as const;

/** The documented fields of a history record, numbers in 62-form: what two answers' records are compared on. */
export function recordKey(r: Body): string {
  return JSON.stringify([r.trx_id, to62(r.manager_number), to62(r.member_number), r.date]);
}

/** The record of a trx_id in a successful history answer, if it shows one. */
export function recordOf(ex: Exchange, trx: unknown): Body | undefined {
  return records(ex)?.find((r) => r.trx_id === trx);
}

/** The provider's date of a trx_id's record in a history answer, if it shows one with a date. */
export function dateOf(ex: Exchange, trx: unknown): string | undefined {
  const date = recordOf(ex, trx)?.date;
  return typeof date === 'string' ? date : undefined;
}

/**
 * Whether an answer's `data` is a record: an object with at least one field that is not null (`{}`, `[]` and
 * null are not; what TRX-2 forbids for an unknown ID and TRX-1 requires for a known one).
 */
export function hasDataRecord(body: Body | undefined): boolean {
  const data = body?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  return Object.values(data).some((v) => v !== null && v !== undefined);
}

/** The saldo of a successful saldo-user answer, or undefined. */
export function saldoOf(ex: Exchange | undefined): number | undefined {
  const body = ex ? bodyOf(ex) : undefined;
  return body?.ok === true && typeof body.saldo === 'number' ? body.saldo : undefined;
}

/** The URL an exchange called, without its query string (a GET's holds the key): for messages. */
export function calledUrl(ex: Pick<Exchange, 'url'>): string {
  try {
    const u = new URL(ex.url);
    u.search = '';
    return u.toString();
  } catch {
    return ex.url.split('?')[0] ?? '';
  }
}

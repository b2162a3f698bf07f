import type { ApiModel } from '../openapi/load.js';
import { to62 } from '../openapi/numbers.js';
import type { Exchange } from '../openapi/types.js';
import { param } from './util.js';

/**
 * How a history filter value reads. Only the spellings the provider documents are judged: a date as
 * YYYY-MM-DD (a real calendar date), a month as 01 to 12, a year as YYYY, a limit as a positive integer. Any
 * other value (`2025-02-30`, `13`, `1`, ` 01`, `2025/03/14`, `01`, `abc`) gives a check nothing to judge: the
 * provider may refuse it, ignore it or read it its own way, and none of these breaks a clause.
 */
export interface DateFilters {
  year?: number;
  month?: number;
  day?: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function calendarDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** The date, month and year filters of a history request, as read; undefined parts were not given or unreadable. */
export function dateFilters(api: ApiModel, ex: Exchange): DateFilters {
  const out: DateFilters = {};
  const date = param(api, ex, 'date');
  const m = typeof date === 'string' ? DATE.exec(date) : null;
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (calendarDate(y, mo, d)) Object.assign(out, { year: y, month: mo, day: d });
  }
  const month = String(param(api, ex, 'month') ?? '');
  if (/^(0[1-9]|1[0-2])$/.test(month)) {
    if (out.month !== undefined && out.month !== Number(month)) out.month = Number.NaN;
    else out.month = Number(month);
  }
  const year = String(param(api, ex, 'year') ?? '');
  if (/^\d{4}$/.test(year)) {
    if (out.year !== undefined && out.year !== Number(year)) out.year = Number.NaN;
    else out.year = Number(year);
  }
  return out;
}

/** Whether a record's YYYY-MM-DD date keeps the filters (a NaN part, from filters that contradict, keeps none). */
export function dateKeeps(date: string, f: DateFilters): boolean {
  const [y, m, d] = date.split('-').map(Number);
  return (
    (f.year === undefined || f.year === y) &&
    (f.month === undefined || f.month === m) &&
    (f.day === undefined || f.day === d)
  );
}

/**
 * `limit` as a count: a whole number of records, 0 included (a JSON number, or digits without a leading zero),
 * else undefined. 0 asks for no records: an answer may refuse it, or hold none.
 */
export function limitOf(api: ApiModel, ex: Exchange): number | undefined {
  // As sent, before the document's validator coerces it ("01" would become 1); limit has no alias.
  const raw = param(api, ex, 'limit') === undefined ? undefined : ex.params.limit;
  const n = typeof raw === 'number' ? raw : /^(0|[1-9]\d*)$/.test(String(raw ?? '')) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The fields of a record q is matched against where no product can hide it (HIS-4's own words). */
export const Q_FIELDS = ['manager_number', 'member_number', 'trx_id'] as const;

/**
 * Whether q occurs in a record, the one rule behind HIS-4 and HIS-5. How a provider matches (letter case, number
 * forms, spaces) is not shown, so the two clauses read it from opposite ends: `may` is every record a provider may
 * return for q (HIS-4: q trimmed, in any letter case, numbers in 08- or 62-form); `must` is every record it must
 * return (HIS-5: q as it stands, letter for letter, in a value as history shows it).
 */
export function qOccursIn(record: Readonly<Record<string, unknown>>, q: string, how: 'may' | 'must'): boolean {
  const s = how === 'may' ? q.trim().toLowerCase() : q;
  if (s === '') return how === 'may';
  return Q_FIELDS.some((k) => {
    const v = record[k];
    if (typeof v !== 'string') return false;
    if (how === 'must') return v.includes(s);
    return v.toLowerCase().includes(s) || (k.endsWith('_number') && to62(v).includes(to62(s)));
  });
}

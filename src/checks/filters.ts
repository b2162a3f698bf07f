import type { ApiModel } from '../openapi/load.js';
import type { Exchange } from '../openapi/types.js';
import { param } from './util.js';

/**
 * How a history filter value reads, where a provider could read it only one way. A value no provider could
 * take as a date, month, year or count (`2025-02-30`, `13`, `abc`, `1.5`) gives a check nothing to judge: the
 * provider may refuse it or ignore it, and neither breaks a clause. A value that reads one way only (`1` and
 * ` 01` both as January, `2025/3/14` as 2025-03-14) is judged by what it means, so a provider that accepts
 * more spellings than openapi.yaml names is not failed for it.
 */
export interface DateFilters {
  year?: number;
  month?: number;
  day?: number;
}

const DATE = /^\s*(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\s*$/;

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
  if (/^\s*\d{1,2}\s*$/.test(month) && Number(month) >= 1 && Number(month) <= 12) {
    if (out.month !== undefined && out.month !== Number(month)) out.month = Number.NaN;
    else out.month = Number(month);
  }
  const year = String(param(api, ex, 'year') ?? '');
  if (/^\s*\d{4}\s*$/.test(year)) {
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

/** `limit` as a count: a positive integer, or undefined when a provider could read it otherwise. */
export function limitOf(api: ApiModel, ex: Exchange): number | undefined {
  const raw = param(api, ex, 'limit');
  const n = typeof raw === 'number' ? raw : /^\s*\d+\s*$/.test(String(raw ?? '')) ? Number(raw) : Number.NaN;
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

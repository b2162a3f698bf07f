import { bodyOf } from './exchange.js';
import type { Exchange } from './types.js';

// The shape of an answer, as a client's code meets it: what the fidelity of a learned reading is measured by
// (bench/fidelity.ts replays the gate's requests against the mock serving what a run learned, and compares each
// pair by shape). Values are the data's; the shape is the provider's reading.

/** A JSON value's type, as a client's code tells them apart. */
export type ValueType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export function valueType(v: unknown): ValueType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object';
}

/** The form of a phone number in an answer: `62` (62812...), `08` (0812...), `+62`; undefined for anything else. */
export function phoneForm(v: unknown): '62' | '08' | '+62' | undefined {
  if (typeof v !== 'string') return undefined;
  if (/^62[0-9]{7,13}$/.test(v)) return '62';
  if (/^0[0-9]{8,13}$/.test(v)) return '08';
  if (/^\+62[0-9]{7,13}$/.test(v)) return '+62';
  return undefined;
}

/** Every field of a value at every level, as `path: type` (`data[].trx_id`: array elements share one path). */
export function fieldTypes(value: unknown): Map<string, Set<ValueType>> {
  const out = new Map<string, Set<ValueType>>();
  const walk = (v: unknown, path: string): void => {
    if (path) {
      const set = out.get(path) ?? new Set<ValueType>();
      set.add(valueType(v));
      out.set(path, set);
    }
    if (Array.isArray(v)) for (const x of v) walk(x, `${path}[]`);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(value, '');
  return out;
}

/** The phone-number forms an answer shows, per field path (`data[].member_number: 08, 62`). */
export function numberForms(value: unknown): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (v: unknown, path: string): void => {
    const form = phoneForm(v);
    if (form) out.set(path, (out.get(path) ?? new Set()).add(form));
    if (Array.isArray(v)) for (const x of v) walk(x, `${path}[]`);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(value, '');
  return out;
}

/** The order of a page of records by date: sorted newest first, oldest first, or neither. */
export function pageOrder(recs: readonly unknown[]): 'newest' | 'oldest' | 'neither' {
  const dates = recs.map((r) => String((r as { date?: unknown } | null)?.date ?? ''));
  const desc = dates.every((d, i) => i === 0 || (dates[i - 1] as string) >= d);
  if (desc) return 'newest';
  return dates.every((d, i) => i === 0 || (dates[i - 1] as string) <= d) ? 'oldest' : 'neither';
}

/** A page shows its order only with this many distinct dates (a shuffled page of 4 looks sorted 1 time in 12). */
export const ORDER_DATES = 4;

/** What one answer looks like to a client: compared pair by pair, never its values. */
export interface AnswerShape {
  http: number;
  /** The body's `ok`, `status` (a success's word too), or `(not JSON)`. */
  ok: string;
  status: string;
  /** `path: type, type` of every field at every level, sorted. */
  fields: string[];
  /** `path: form, form` of every phone number, sorted. */
  forms: string[];
  /** Records of a history page: their count, and their order when the page shows one. */
  records?: { count: number; order?: 'newest' | 'oldest' | 'neither' };
}

const listed = (m: Map<string, Set<string>>): string[] =>
  [...m].map(([path, set]) => `${path}: ${[...set].sort().join(', ')}`).sort();

/** The shape of one answer. */
export function answerShape(ex: Exchange): AnswerShape {
  const body = bodyOf(ex);
  if (!body) return { http: ex.httpStatus, ok: '(not JSON)', status: '(not JSON)', fields: [], forms: [] };
  const shape: AnswerShape = {
    http: ex.httpStatus,
    ok: String(body.ok),
    status: String(body.status),
    fields: listed(fieldTypes(body)),
    forms: listed(numberForms(body)),
  };
  if (ex.endpoint === 'history-transaksi' && Array.isArray(body.data)) {
    const dates = new Set(body.data.map((r) => String((r as { date?: unknown } | null)?.date ?? '')));
    shape.records = {
      count: body.data.length,
      ...(dates.size >= ORDER_DATES ? { order: pageOrder(body.data) } : {}),
    };
  }
  return shape;
}

/**
 * How two shapes differ, one line per part (`HTTP 403 != 401`, `fields: + error.code: string`); none when they
 * are equal. `count`: compare the number of records too (where the limits decide it); the order of records is
 * compared where both pages show one.
 */
export function shapeDifferences(want: AnswerShape, got: AnswerShape, opts: { count: boolean }): string[] {
  const out: string[] = [];
  if (want.http !== got.http) out.push(`HTTP ${got.http}, not ${want.http}`);
  if (want.ok !== got.ok) out.push(`ok ${got.ok}, not ${want.ok}`);
  if (want.status !== got.status) out.push(`status ${got.status}, not ${want.status}`);
  const diff = (what: string, a: string[], b: string[]): void => {
    const missing = a.filter((x) => !b.includes(x));
    const extra = b.filter((x) => !a.includes(x));
    if (missing.length || extra.length)
      out.push(`${what}: ${[...missing.map((x) => `- ${x}`), ...extra.map((x) => `+ ${x}`)].join('; ')}`);
  };
  diff('fields', want.fields, got.fields);
  diff('forms', want.forms, got.forms);
  const a = want.records;
  const b = got.records;
  if (a && b) {
    if (opts.count && a.count !== b.count) out.push(`${b.count} records, not ${a.count}`);
    if (a.order && b.order && a.order !== b.order) out.push(`records ${b.order}, not ${a.order}`);
  }
  return out;
}

/**
 * The characters of a string as runs of classes: `d` ASCII digits, `a` lower-case and `A` upper-case ASCII
 * letters, `U` anything beyond ASCII, each with its count; other characters as they are, a control character as
 * `\xNN`. `2026-02-30` is `d4-d2-d2`, `trx_01.A` is `a3_d2.A1`.
 */
export function charShape(s: string): string {
  let out = '';
  let run = '';
  let n = 0;
  const flush = (): void => {
    if (run) out += `${run}${n}`;
    run = '';
    n = 0;
  };
  for (const c of s) {
    const cls = /[0-9]/.test(c) ? 'd' : /[a-z]/.test(c) ? 'a' : /[A-Z]/.test(c) ? 'A' : c > '\x7f' ? 'U' : undefined;
    if (cls === undefined) {
      flush();
      out += c < ' ' || c === '\x7f' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c;
    } else if (cls === run) n++;
    else {
      flush();
      run = cls;
      n = 1;
    }
  }
  flush();
  return out;
}

/** Whether a text is a day of the calendar written YYYY-MM-DD (2026-02-30 is not). */
export const isCalendarDate = (s: string): boolean => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

/** The class of an integer: zero, negative, from 1 below 2^31, or 2^31 and above. */
const integerClass = (n: number): string => (n === 0 ? 'zero' : n < 0 ? 'negative' : n < 2 ** 31 ? 'int' : 'int>=2^31');

/**
 * What a value of a parameter looks like, by the parameter's role (`x-role`), with nothing of the value itself but
 * what a provider's rule can turn on: its JSON type, its characters' classes and lengths (charShape), a phone
 * number's first two characters, an enum's own value, whether a date is one of the calendar, whether a month is
 * 1 to 12, an integer's class. The reading learns per shape whether the provider accepted a value; no phone
 * number or key can be read back from one.
 */
export function valueShape(role: string, value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? `number:${integerClass(value)}` : 'number:fraction';
  if (typeof value !== 'string') return valueType(value);
  if (value === '') return 'empty';
  const chars = charShape(value);
  switch (role) {
    case 'phone': {
      // The prefix up to the first digit after the country or trunk code: 08, 07, 628, 621, +628.
      const head = /^(\+62|62|0)?./.exec(value)?.[0] ?? '';
      return `${head}${charShape(value.slice(head.length))}`;
    }
    case 'enum':
      return /^[a-z]+$/.test(value) && value.length <= 12 ? value : chars;
    case 'date':
      return chars === 'd4-d2-d2' && !isCalendarDate(value) ? `${chars} not in the calendar` : chars;
    case 'month':
      return /^[0-9]+$/.test(value)
        ? `${chars} ${Number(value) >= 1 && Number(value) <= 12 ? '1..12' : 'not 1..12'}`
        : chars;
    case 'count':
      return /^-?[0-9]+$/.test(value) ? `${chars} ${integerClass(Number(value))}` : chars;
    default:
      return chars;
  }
}

/**
 * The value of a parameter as it went over the wire, under its first name: before the fold coerces it (`+5` stays a
 * string), and on GET as the text of the query string.
 */
export function sentValue(
  sentAs: Record<string, string[]>,
  raw: Record<string, unknown>,
  param: string,
  method: 'GET' | 'POST' = 'POST',
): unknown {
  const name = sentAs[param]?.[0];
  const v = name === undefined ? undefined : raw[name];
  const one = Array.isArray(v) ? v[0] : v;
  return method === 'GET' && one !== undefined ? String(one) : one;
}

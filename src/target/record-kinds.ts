import { bodyOf } from '../openapi/exchange.js';
import { numberForm } from '../openapi/numbers.js';
import type { Exchange } from '../openapi/types.js';
import { isJsonObject } from '../shared/json.js';
import { trxKind } from './trx-ids.js';

/** A history record's documented fields, as discovery keeps them. */
export type HistoryRecord = Readonly<Record<string, string>>;

/**
 * The kinds of record an account shows, so that what a check does with one record (look it up, filter for it,
 * ask for it with a wrong key) is done with one of every kind: a provider may get one kind wrong (a FAILED
 * transaction it cannot look up, an ID with punctuation its search escapes badly, a number stored in 08-form,
 * a record of today that a date filter misses). A kind is read from what a record shows: the shape of its
 * transaction ID, the form of each number, its age, and any status it carries, in history or in a lookup of it.
 */
export interface KindedRecord {
  /** The record's documented fields. */
  record: HistoryRecord;
  /** What makes it a kind of its own, in words: `ID upper with -, member 08-form, today, status FAILED`. */
  kind: string;
}

/** The traits of a record, each `name=value`: two records of one kind share them all. */
function traits(
  r: Readonly<Record<string, unknown>>,
  newestDate: string | undefined,
  looked: Readonly<Record<string, string>>,
): string[] {
  const id = String(r.trx_id ?? '');
  const punct = [...new Set(id.replace(/[A-Za-z0-9]/g, ''))].sort().join('');
  const status = typeof r.status === 'string' ? r.status : typeof r.state === 'string' ? r.state : undefined;
  return [
    `ID ${trxKind(id)}${punct ? ` with ${punct}` : ''}`,
    `manager ${numberForm(r.manager_number)}-form`,
    `member ${numberForm(r.member_number)}-form`,
    r.date === newestDate ? 'of the newest date' : 'older',
    `year ${String(r.date ?? '').slice(0, 4)}`,
    ...(status !== undefined ? [`status ${status}`] : []),
    ...(looked[id] !== undefined ? [looked[id]] : []),
  ];
}

/** Whether a lookup's trait (`lookupTrait`) says the record succeeded: its ID is used for good. */
export const lookedSucceeded = (trait: string | undefined): boolean => trait === 'looked up: status SUCCESS';

/**
 * What a lookup of a record shows of its kind: its status word, or the shape that stands in for one (a list for
 * `data`, a status of another JSON type, a refusal). A provider may answer one kind of record in its own way.
 */
export function lookupTrait(ex: Exchange): string {
  const b = bodyOf(ex);
  if (b === undefined) return `looked up: HTTP ${ex.httpStatus}, no JSON object`;
  if (b.ok !== true) return `looked up: refused ${typeof b.status === 'string' ? b.status : `HTTP ${ex.httpStatus}`}`;
  if (Array.isArray(b.data)) return 'looked up: data a list';
  if (!isJsonObject(b.data)) return `looked up: data ${b.data === null ? 'null' : typeof b.data}`;
  const s = b.data.status;
  return typeof s === 'string' ? `looked up: status ${s}` : `looked up: status ${s === null ? 'null' : typeof s}`;
}

/**
 * One record of every kind: greedily, the record that shows the most traits not yet shown, until every trait
 * any record has is shown (a few records cover every kind of a large account), at most `max`.
 */
export function recordsOfEveryKind(
  raw: readonly Readonly<Record<string, unknown>>[],
  documented: (r: Readonly<Record<string, unknown>>) => HistoryRecord,
  newestDate: string | undefined,
  looked: Readonly<Record<string, string>> = {},
  max = 16,
): KindedRecord[] {
  return oneOfEveryTrait(raw, (r) => traits(r, newestDate, looked), max).map(({ item, traits: t }) => ({
    record: documented(item),
    kind: t.join(', '),
  }));
}

/**
 * Items that show every trait any item shows: greedily, the one that shows the most traits not yet shown, until
 * none is left unshown, at most `max`. Records of every kind, the run's invites of every way they were sent.
 */
export function oneOfEveryTrait<T>(
  items: readonly T[],
  traitsOf: (item: T) => readonly string[],
  max: number,
): { item: T; traits: readonly string[] }[] {
  const withTraits = items.map((item) => ({ item, traits: traitsOf(item) }));
  const shown = new Set<string>();
  const out: { item: T; traits: readonly string[] }[] = [];
  while (out.length < max) {
    let best: (typeof withTraits)[number] | undefined;
    let gain = 0;
    for (const x of withTraits) {
      const g = x.traits.filter((t) => !shown.has(t)).length;
      if (g > gain) {
        best = x;
        gain = g;
      }
    }
    if (!best) break;
    for (const t of best.traits) shown.add(t);
    out.push(best);
  }
  return out;
}

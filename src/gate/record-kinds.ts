import { trxKind } from './trx-ids.js';

/** A history record's documented fields, as discovery keeps them. */
export type HistoryRecord = Readonly<Record<string, string>>;

/**
 * The kinds of record an account shows, so that what a check does with one record (look it up, filter for it,
 * ask for it with a wrong key) is done with one of every kind: a provider may get one kind wrong (a FAILED
 * transaction it cannot look up, an ID with punctuation its search escapes badly, a number stored in 08-form,
 * a record of today that a date filter misses). A kind is read from what a record shows: the shape of its
 * transaction ID, the form of each number, its age, and any status it carries.
 */
export interface KindedRecord {
  /** The record's documented fields. */
  record: HistoryRecord;
  /** What makes it a kind of its own, in words: `ID upper with -, member 08-form, today, status FAILED`. */
  kind: string;
}

/** The traits of a record, each `name=value`: two records of one kind share them all. */
function traits(r: Readonly<Record<string, unknown>>, newestDate: string | undefined): string[] {
  const id = String(r.trx_id ?? '');
  const punct = [...new Set(id.replace(/[A-Za-z0-9]/g, ''))].sort().join('');
  const form = (n: unknown): string => {
    const s = String(n ?? '');
    return s.startsWith('62') ? '62' : s.startsWith('0') ? '08' : s.startsWith('+') ? '+62' : 'other';
  };
  const status = typeof r.status === 'string' ? r.status : typeof r.state === 'string' ? r.state : undefined;
  return [
    `ID ${trxKind(id)}${punct ? ` with ${punct}` : ''}`,
    `manager ${form(r.manager_number)}-form`,
    `member ${form(r.member_number)}-form`,
    r.date === newestDate ? 'of the newest date' : 'older',
    `year ${String(r.date ?? '').slice(0, 4)}`,
    ...(status !== undefined ? [`status ${status}`] : []),
  ];
}

/**
 * One record of every kind: greedily, the record that shows the most traits not yet shown, until every trait
 * any record has is shown (a few records cover every kind of a large account), at most `max`.
 */
export function recordsOfEveryKind(
  raw: readonly Readonly<Record<string, unknown>>[],
  documented: (r: Readonly<Record<string, unknown>>) => HistoryRecord,
  newestDate: string | undefined,
  max = 12,
): KindedRecord[] {
  const withTraits = raw.map((r) => ({ r, t: traits(r, newestDate) }));
  const shown = new Set<string>();
  const out: KindedRecord[] = [];
  while (out.length < max) {
    let best: (typeof withTraits)[number] | undefined;
    let gain = 0;
    for (const x of withTraits) {
      const g = x.t.filter((t) => !shown.has(t)).length;
      if (g > gain) {
        best = x;
        gain = g;
      }
    }
    if (!best) break;
    for (const t of best.t) shown.add(t);
    out.push({ record: documented(best.r), kind: best.t.join(', ') });
  }
  return out;
}

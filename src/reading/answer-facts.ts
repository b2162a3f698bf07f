import { bodyOf, records } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { numberForm } from '../openapi/numbers.js';
import type { Exchange } from '../openapi/types.js';

// What one answer says of the provider's reading (the open points of src/openapi/open-points.ts): read by the gate,
// which learns the reading over a run (learn-reading.ts), and by the probe, which exports what its three read-only
// calls show (probe-points.ts).

/** One thing an answer showed: a knob of open-points.ts (or a helper fact such as `saldo-value`) and its value. */
export interface Fact {
  knob: string;
  value: string;
}

export interface FactOptions {
  /**
   * A history page shows its order only with at least this many distinct dates (a shuffled page of few records
   * looks sorted by chance: 2 in k! for k dates). @defaultValue 2
   */
  orderMinDates?: number;
}

const CODINGS = new Set(['gzip', 'deflate', 'br']);

function contentTypeClass(ct: string): string | undefined {
  const t = ct.trim().toLowerCase();
  if (!t.startsWith('application/json')) return undefined;
  if (t === 'application/json') return 'plain';
  return /^application\/json\s*;\s*charset=utf-8$/.test(t) ? 'charset' : 'params';
}

/** The form of a number as the reading's knobs take it (`08` or `62`), else undefined. */
function knobForm(v: unknown): '08' | '62' | undefined {
  const f = numberForm(v);
  return f === '08' || f === '62' ? f : undefined;
}

/**
 * What one answer says of the provider's reading. `extraFields`: the answer carried a field the document does
 * not name (drift).
 */
export function readingFacts(
  api: ApiModel,
  ex: Exchange,
  apiKey: string,
  extraFields: boolean,
  opts: FactOptions = {},
): Fact[] {
  const body = bodyOf(ex);
  if (!body) return [];
  const out: Fact[] = [];
  const fact = (knob: string, value: string): void => {
    out.push({ knob, value });
  };
  const ct = contentTypeClass(ex.contentType);
  if (ct) fact('content-type', ct);
  const coding = (ex.headers?.['content-encoding'] ?? '').trim().toLowerCase();
  fact('content-coding', CODINGS.has(coding) ? coding : 'none');
  fact('extra', extraFields ? 'everywhere' : 'none');
  const p = api.foldRequest(ex.endpoint, ex.params).params;
  if (body.ok === false) {
    if (ex.httpStatus === 429 || ex.httpStatus === 503) {
      fact('rate-limited', String(ex.httpStatus));
      return out;
    }
    if (ex.httpStatus === 200) fact('refusal-http', '200');
    else if (ex.httpStatus >= 400 && ex.httpStatus < 500) fact('refusal-http', '4xx');
    // A wrong key on saldo-user (its only parameter): the refusal of a key, whose word the reading sets.
    if (ex.endpoint === 'saldo-user' && typeof p.api_key === 'string' && p.api_key !== '' && p.api_key !== apiKey) {
      const word = String(body.status ?? '');
      fact('refusal-words', word === 'INVALID_API_KEY' ? 'upper' : word === 'invalid_api_key' ? 'lower' : 'other');
    }
    return out;
  }
  if (body.ok !== true) return out;
  if (ex.endpoint !== 'invite-member') fact('message', Object.hasOwn(body, 'message') ? 'present' : 'absent');
  if (ex.endpoint === 'saldo-user' && typeof body.saldo === 'number' && Number.isFinite(body.saldo)) {
    const s = body.saldo;
    fact('saldo', !Number.isInteger(s) ? 'fraction' : s >= 2 ** 31 ? 'big' : 'small');
    fact('saldo-value', String(s));
  }
  const rs = ex.endpoint === 'history-transaksi' ? records(ex) : undefined;
  if (rs) {
    for (const r of rs) {
      const m = knobForm(r.manager_number);
      if (m) fact('manager-form', m);
      const n = knobForm(r.member_number);
      if (n) fact('member-form', n);
    }
    const dates = rs.map((r) => String(r.date ?? ''));
    if (new Set(dates).size >= Math.max(2, opts.orderMinDates ?? 2)) {
      const desc = dates.every((d, i) => i === 0 || (dates[i - 1] as string) >= d);
      const asc = dates.every((d, i) => i === 0 || (dates[i - 1] as string) <= d);
      fact('order', desc ? 'newest' : asc ? 'oldest' : 'shuffled');
    }
  }
  return out;
}

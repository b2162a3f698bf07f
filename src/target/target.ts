import type { Target } from '../client/target.js';
import { bodyOf, RECORD_FIELDS, records } from '../openapi/exchange.js';
import { to62 } from '../openapi/numbers.js';
import type { Exchange } from '../openapi/types.js';
import { byCodeUnit } from '../shared/order.js';
import { type KindedRecord, lookupTrait, recordsOfEveryKind } from './record-kinds.js';
import { type RawSend, type SendPolicy, sendUnderPolicy } from './send-policy.js';
import type { TrxRule } from './trx-ids.js';

export type Kind = 'akrab' | 'circle';

/** A target of the gate, and what the gate may do there. */
export interface GateTarget extends Target {
  /** Invites that could succeed are sent only when true. */
  allowWrites: boolean;
  /** Product code for invites. */
  product?: string;
  /** The kind that goes with `product`, sent where a scenario needs a kind. */
  kind?: Kind;
  /** The only numbers that may be invited. */
  msisdns: readonly string[];
  /** A known transaction for lookups; else taken from history. */
  knownTrxId?: string;
  /** The transaction IDs the provider accepts (`--trx-id-length`, `--trx-id-chars`). @defaultValue DEFAULT_TRX_RULE */
  trxRule?: TrxRule;
  /** Lookups discovery makes to learn each record's status (`--kind-lookups`). @defaultValue KIND_LOOKUPS */
  kindLookups?: number;
  /** The most requests in flight (`--concurrency`): discovery's lookups keep to it. @defaultValue 4 */
  concurrency?: number;
}

/** `--kind-lookups`'s default: 96 lookups miss a status of 5 % of the records once in a hundred accounts. */
export const KIND_LOOKUPS = 96;

export type { HistoryRecord } from './record-kinds.js';

/** Facts read from the target's own history, so read scenarios hold on any account. */
export interface TargetData {
  /** A record of the account's history; absent when the account has none. */
  record?: Readonly<Record<string, string>>;
  /**
   * The newest date discovery saw: history of this date (and of its month) may still grow while the run goes on,
   * its own invites among them (`settledDate`).
   */
  newestDate?: string;
  /** How many records discovery saw (with an explicit limit). */
  seen: number;
  /**
   * The limit history reads that compare or look for records ask for: COMPARE_LIMIT, or fewer when discovery
   * got fewer records than it asked for (the provider may clamp `limit` silently at that many, so only an answer
   * with fewer records than this is known to be complete).
   */
  pageLimit?: number;
  /**
   * The records discovery saw (its first page, then a page of each of the last three years), their documented
   * fields only (history properties take their values from these).
   */
  records?: Readonly<Record<string, string>>[];
  /** One record of every kind among them (record-kinds.ts). */
  kinds?: KindedRecord[];
  /** What a lookup of each record discovery looked up showed (`lookupTrait`): its status, where history shows none. */
  looked?: Readonly<Record<string, string>>;
  /** A transaction ID known to exist (configured, or from history: not one of the run's own numbers). */
  knownTrxId?: string;
}

/**
 * Whether a date's records stand still for the run: it is before the newest date discovery saw. The record's own
 * date is not when every record seen was of the newest date; reads that compare two answers then narrow by the
 * record's trx_id instead.
 */
export function settledDate(data: Pick<TargetData, 'newestDate'>, date: string): boolean {
  return data.newestDate !== undefined && date < data.newestDate;
}

/** Records asked for while discovering; an explicit limit, never the unknown default. */
export const DISCOVERY_LIMIT = 20;

/**
 * Facts from one history answer of the target's own account, so that dates, months, years, IDs and numbers
 * come from its records, never from the local clock.
 */
export function discoveredData(
  ex: Exchange | undefined,
  knownTrxId?: string,
  ownNumbers: readonly string[] = [],
  asked = DISCOVERY_LIMIT,
  census: readonly Exchange[] = [],
  looked: Readonly<Record<string, string>> = {},
): TargetData {
  const body = ex ? bodyOf(ex) : undefined;
  const data = body?.ok === true && Array.isArray(body.data) ? body.data : [];
  const shown = wellFormed(data);
  const all = new Map(shown.map((r) => [r.trx_id, r]));
  for (const c of census) for (const r of wellFormed(records(c) ?? [])) if (!all.has(r.trx_id)) all.set(r.trx_id, r);
  // Every pick below comes from the records in one order of their own (newest date first, then trx_id), never
  // the order the answers listed them in: a provider may shuffle its history, and the records a run tests must
  // not change with it.
  const sorted = [...all.values()].sort(byDateThenId);
  const newest = sorted[0]?.date ?? '';
  // Prefer a record of a past date (not the newest date seen, which may still be growing) that shares its
  // date with the most records, so that date filters and GET/POST comparisons have several stable records.
  const onDate = new Map<string | undefined, number>();
  for (const r of sorted) onDate.set(r.date, (onDate.get(r.date) ?? 0) + 1);
  const count = (d: string | undefined): number => onDate.get(d) ?? 0;
  const past = sorted
    .filter((r) => String(r.date) < newest)
    .sort((a, b) => count(b.date) - count(a.date) || byDateThenId(a, b));
  const documented = (r: Readonly<Record<string, unknown>>): Record<string, string> =>
    Object.fromEntries(RECORD_FIELDS.map((k) => [k, String(r[k])]));
  const record = past[0] ?? sorted[0];
  const pick = record ? documented(record) : undefined;
  // The used trx_id that guards read-only invites: one whose member is none of the run's own numbers, so that
  // a guarded invite never repeats its first request exactly (a provider may answer that as an idempotent replay,
  // ok true, and the guard would look broken). Without a past record, one of the newest date (a transaction shown
  // PENDING for a moment is legal).
  const own = new Set(ownNumbers.map(to62));
  const guard = [...past, ...sorted].find((r) => !own.has(to62(String(r.member_number)))) ?? record;
  return {
    ...(pick ? { record: pick } : {}),
    ...(newest ? { newestDate: newest } : {}),
    seen: shown.length,
    ...(data.length > 0 && data.length < asked
      ? { pageLimit: Math.max(2, data.length) }
      : asked < DISCOVERY_LIMIT
        ? { pageLimit: asked }
        : {}),
    records: sorted.map(documented),
    kinds: recordsOfEveryKind(sorted, documented, newest || undefined, looked),
    ...(Object.keys(looked).length ? { looked } : {}),
    ...(knownTrxId ? { knownTrxId } : guard ? { knownTrxId: String(guard.trx_id) } : {}),
  };
}

/** Newest date first, then trx_id by code unit (the same on every machine, unlike a locale's collation). */
function byDateThenId(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): number {
  return byCodeUnit(b.date ?? '', a.date ?? '') || byCodeUnit(a.trx_id ?? '', b.trx_id ?? '');
}

/** Records with every documented field a string: the ones a check can take values from. */
function wellFormed(data: readonly unknown[]): Record<string, string>[] {
  return data.filter(
    (r): r is Record<string, string> =>
      typeof r === 'object' &&
      r !== null &&
      RECORD_FIELDS.every((k) => typeof (r as Record<string, unknown>)[k] === 'string'),
  );
}

/** Limits discovery asks with, largest first: a provider may refuse a limit above its own maximum. */
const DISCOVERY_LIMITS = [DISCOVERY_LIMIT, 10, 5];

/**
 * Reads the target's history with an explicit limit, for data taken from its own records: by GET, and by POST when
 * GET is not answered with ok true (a target may refuse one method; ENV-2 judges that, discovery goes on). A limit
 * refused on both (its maximum is not shown) is tried smaller; the page the target gives sets what the gate's
 * history reads ask for (`pageLimit`). Then it looks up the records it saw (`lookUp`); `before`, the run's earlier
 * discovery, spares the lookups that one made.
 */
export async function discover(
  raw: RawSend,
  policy: SendPolicy,
  target: GateTarget,
  before?: TargetData,
): Promise<TargetData> {
  const read = (method: 'GET' | 'POST', limit: number) =>
    sendUnderPolicy(raw, 'history-transaksi', method, { api_key: target.apiKey, limit }, policy, {
      flaky: [],
      waits: [],
    });
  const ok = (ex: Exchange): boolean => (ex.body as { ok?: unknown } | undefined)?.ok === true;
  let first: Exchange | undefined;
  for (const limit of DISCOVERY_LIMITS) {
    for (const method of ['GET', 'POST'] as const) {
      const ex = await read(method, limit);
      first ??= ex;
      if (!ok(ex)) continue;
      // A census of the last three years: records of other kinds (older ones, other statuses) than the first
      // page, which is often all of the newest date.
      // Only well-formed records count here (any answer may come: HIS-1 judges the rest).
      const years = wellFormed(records(ex) ?? []).map((r) => Number(String(r.date).slice(0, 4)));
      const newest = Math.max(0, ...years.filter((y) => y > 1900 && y < 10_000));
      const census = newest
        ? await Promise.all(
            [newest, newest - 1, newest - 2].map((y) =>
              sendUnderPolicy(
                raw,
                'history-transaksi',
                method,
                { api_key: target.apiKey, limit, year: String(y) },
                policy,
                { flaky: [], waits: [] },
              ),
            ),
          )
        : [];
      const seen = discoveredData(ex, target.knownTrxId, target.msisdns, limit, census);
      const looked = await lookUp(raw, policy, target, method, seen, before?.looked ?? {});
      return discoveredData(ex, target.knownTrxId, target.msisdns, limit, census, looked);
    }
  }
  return discoveredData(first, target.knownTrxId, target.msisdns);
}

/**
 * Lookups of the records discovery saw, so that a record's status is known where history shows none (a FAILED
 * transaction the provider answers in another shape is a kind of its own): at most `--kind-lookups`, spread evenly
 * over the records (newest first), as many at a time as the run's concurrency (4 unless set; the pace holds them
 * to it, and to the rate); a record an earlier discovery looked up is not looked up again.
 */
async function lookUp(
  raw: RawSend,
  policy: SendPolicy,
  target: GateTarget,
  method: 'GET' | 'POST',
  seen: TargetData,
  before: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const ids = (seen.records ?? []).map((r) => r.trx_id ?? '').filter((id) => id !== '' && before[id] === undefined);
  const budget = Math.max(0, (target.kindLookups ?? KIND_LOOKUPS) - Object.keys(before).length);
  const step = ids.length / Math.min(budget, ids.length);
  const chosen = ids.length <= budget ? ids : Array.from({ length: budget }, (_, i) => ids[Math.floor(i * step)] ?? '');
  const looked: Record<string, string> = { ...before };
  const queue = [...chosen];
  const lane = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const ex = await sendUnderPolicy(raw, 'cek-trx-id', method, { api_key: target.apiKey, trx_id: id }, policy, {
        flaky: [],
        waits: [],
      });
      looked[id] = lookupTrait(ex);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, target.concurrency ?? 4) }, lane));
  return looked;
}

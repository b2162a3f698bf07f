import { bodyOf } from '../checks/util.js';
import type { Endpoint, Exchange, Method, Params } from '../spec/types.js';

export type Kind = 'akrab' | 'circle';

/** No HTTP answer came (reset, timeout, refused connection): retried once, then reported as flaky or broken. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** A target of the contract suite: how to send, and what the run may do there. */
export interface Target {
  /** Sends one request; throws TransportError when no HTTP answer came. */
  send(endpoint: Endpoint, method: Method, params: Params): Promise<Exchange>;
  apiKey: string;
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
}

/** Facts read from the target's own history, so read scenarios hold on any account. */
export interface TargetData {
  /** A record of the account's history; absent when the account has none. */
  record?: Readonly<Record<string, string>>;
  /** How many records discovery saw (with an explicit limit). */
  seen: number;
  /** A transaction ID known to exist (configured or from history). */
  knownTrxId?: string;
}

/** Records asked for while discovering; an explicit limit, never the unknown default. */
export const DISCOVERY_LIMIT = 20;

/** Reads the target's history once, to take dates, months, years, IDs and numbers from its own records. */
export async function discover(target: Target): Promise<TargetData> {
  const ex = await target.send('history-transaksi', 'GET', { api_key: target.apiKey, limit: DISCOVERY_LIMIT });
  const body = bodyOf(ex);
  const data = body?.ok === true && Array.isArray(body.data) ? body.data : [];
  const records = data.filter(
    (r): r is Record<string, string> =>
      typeof r === 'object' &&
      r !== null &&
      ['trx_id', 'manager_number', 'member_number', 'date'].every(
        (k) => typeof (r as Record<string, unknown>)[k] === 'string',
      ),
  );
  // Prefer a record of a past date (not the newest date seen, which may still be growing) that shares its
  // date with the most records, so that date filters and GET/POST comparisons have several stable records.
  const newest =
    records
      .map((r) => String(r.date))
      .sort()
      .pop() ?? '';
  const count = (d: string): number => records.filter((r) => r.date === d).length;
  const past = records
    .filter((r) => String(r.date) < newest)
    .sort((a, b) => count(String(b.date)) - count(String(a.date)));
  const record = past[0] ?? records[0];
  return {
    ...(record ? { record } : {}),
    seen: records.length,
    ...(target.knownTrxId ? { knownTrxId: target.knownTrxId } : record ? { knownTrxId: record.trx_id } : {}),
  };
}

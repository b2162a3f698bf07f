import { type Body, bodyOf, recordKey, records } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { to62 } from '../openapi/numbers.js';
import type { ClauseId, Exchange, Finding } from '../openapi/types.js';
import { show } from '../shared/jsonpath.js';
import { dateFilters, dateKeeps, limitOf, qOccursIn } from './filters.js';
import { finding, param } from './util.js';

/**
 * Whether a history answer holds every record its query matches: fewer records than the limit it asked for.
 * Undefined when that cannot be known (no explicit limit, or no records array).
 */
export function historyComplete(api: ApiModel, ex: Exchange): boolean | undefined {
  const data = records(ex);
  const limit = limitOf(api, ex);
  if (!data || limit === undefined) return undefined;
  return data.length < limit;
}

/**
 * Records the later answer (`b`, sent after `a`) holds and the earlier lacks entirely (no record of that trx_id)
 * that the account may have gained between the two calls: of the newest date either shows, and matching the
 * earlier request's own filters (another client of the account invites at any time). A record the earlier answer
 * holds and the later lacks, or one the earlier request's filters exclude, is a difference of outcome.
 */
function newRecords(api: ApiModel, a: Exchange, b: Exchange): Set<string> {
  const ra = records(a) ?? [];
  const rb = records(b) ?? [];
  const newest =
    [...ra, ...rb]
      .map((r) => String(r.date ?? ''))
      .sort()
      .pop() ?? '';
  const filters = dateFilters(api, a);
  const q = param(api, a, 'q');
  const out = new Set<string>();
  for (const r of rb)
    if (
      String(r.date) === newest &&
      !ra.some((o) => o.trx_id === r.trx_id) &&
      dateKeeps(newest, filters) &&
      (q === undefined || qOccursIn(r, String(q), 'may'))
    )
      out.add(recordKey(r));
  return out;
}

/** The multiset difference a - b of record keys. */
function missing(a: string[], b: string[]): string[] {
  const rest = [...b];
  const out: string[] = [];
  for (const k of a) {
    const i = rest.indexOf(k);
    if (i < 0) out.push(k);
    else rest.splice(i, 1);
  }
  return out;
}

/**
 * Whether the later answer `b` reached its limit only by the account's growth: every record it holds is one the
 * earlier, complete answer `a` holds, or new since (newRecords).
 */
function grewToLimit(api: ApiModel, a: Exchange, b: Exchange, ka: string[], kb: string[]): boolean {
  const grown = newRecords(api, a, b);
  if (!grown.size) return false;
  return missing(kb, ka).every((k) => grown.has(k));
}

/**
 * Whether the later answer `b`, short of its limit, differs from the earlier only by records the account gained
 * between the calls and by records of `a` older than every record `b` holds: `b` cut its own page at the tail (a
 * limit met by the account's growth, answered one short). That breaks the history clauses on `b` alone (HIS-5's
 * "every matching record"), judged there; between the two names or methods it is no difference of outcome, since
 * the same query asked twice of a growing account meets the same cut.
 */
function tailCutAfterGrowth(a: Exchange, b: Exchange, grown: Set<string>, onlyA: string[], onlyB: string[]): boolean {
  if (!grown.size || onlyB.length || !onlyA.length) return false;
  const held = (records(b) ?? []).filter((r) => !grown.has(recordKey(r)));
  const oldestHeld = held.map((r) => String(r.date ?? '')).sort()[0];
  if (oldestHeld === undefined) return false;
  const cut = (records(a) ?? []).filter((r) => onlyA.includes(recordKey(r)));
  return cut.length === onlyA.length && cut.every((r) => String(r.date ?? '') <= oldestHeld);
}

/**
 * ENV-2 and ENV-3: `b` must give the outcome of `a`: same `ok`, same `status`, same payload. What "same
 * payload" means follows the clause where the provider decides part of the answer:
 * - invite-member: two invites carry distinct trx_ids; each must echo its own, and `detail.member` must be
 *   the same. `detail.manager` and `detail.slot` are the provider's per invite and are not compared.
 * - history-transaksi: records compared as multisets on their documented fields (numbers in 62-form), and
 *   only when both answers are complete (fewer records than the limit). One complete answer beside one that
 *   reached its limit is a difference; two incomplete ones are not compared (the caller narrows the query).
 *   `b` is the answer of the later request: a record of today only it holds, which `a`'s filters match, is the
 *   account growing between the calls (another client's invite), never a difference; nor is `b` cut at its tail
 *   after such growth (tailCutAfterGrowth), a breach of the history clauses judged on `b` itself.
 * - cek-trx-id: `data.trx_id` and `data.status`. saldo-user: `saldo` by presence and type (a balance moves).
 * `message` may differ; fields the document does not name are drift, never compared.
 */
export function compareOutcomes(api: ApiModel, clause: ClauseId, a: Exchange, b: Exchange): Finding[] {
  const ba = bodyOf(a);
  const bb = bodyOf(b);
  const label = `${a.method} ${paramNames(a)} vs ${b.method} ${paramNames(b)}`;
  if (!ba || !bb) {
    if (!ba && !bb) return [];
    return [
      finding(api, clause, b, '$', `a JSON object as for ${label.split(' vs ')[0]}`, bb ? '(JSON)' : '(not JSON)'),
    ];
  }
  const out: Finding[] = [];
  const diff = (path: string, x: unknown, y: unknown, ex: Exchange = b): void => {
    out.push(finding(api, clause, ex, path, show(x), y, `${path} differs (${label}): ${show(x)} vs ${show(y)}`));
  };
  if (ba.ok !== bb.ok) diff('$.ok', ba.ok, bb.ok);
  if (ba.status !== bb.status) diff('$.status', ba.status, bb.status);
  if (ba.ok !== true || bb.ok !== true) return out;
  switch (a.endpoint) {
    case 'invite-member': {
      for (const ex of [a, b]) {
        const body = ex === a ? ba : bb;
        const sent = param(api, ex, 'trx_id');
        if (body.trx_id !== sent)
          out.push(finding(api, clause, ex, '$.trx_id', `${show(sent)} (its own request's trx_id)`, body.trx_id));
      }
      const ma = (ba.detail as Body | undefined)?.member;
      const mb = (bb.detail as Body | undefined)?.member;
      if (ma !== mb) diff('$.detail.member', ma, mb);
      break;
    }
    case 'history-transaksi': {
      const ca = historyComplete(api, a);
      const cb = historyComplete(api, b);
      const ka = (records(a) ?? []).map(recordKey);
      const kb = (records(b) ?? []).map(recordKey);
      if (ca === true && cb === true) {
        // A record of today that only the later answer shows, and that the earlier request's filters match, is the
        // account growing between the two calls (another client's invite), not a difference of outcome.
        const grown = newRecords(api, a, b);
        const onlyA = missing(ka, kb).filter((k) => !grown.has(k));
        const onlyB = missing(kb, ka).filter((k) => !grown.has(k));
        if ((onlyA.length || onlyB.length) && !tailCutAfterGrowth(a, b, grown, onlyA, onlyB))
          diff(
            '$.data',
            `${ka.length} record(s)${onlyA.length ? `, among them ${onlyA.slice(0, 3).join(' ')}` : ''}`,
            `${kb.length} record(s)${onlyB.length ? `, among them ${onlyB.slice(0, 3).join(' ')}` : ''}`,
          );
      } else if (ca === true && cb === false && grewToLimit(api, a, b, ka, kb)) {
        // The earlier answer complete, the later one at its limit only because the account grew between the calls
        // (another client's invites of today): no difference of outcome.
      } else if (ca !== undefined && cb !== undefined && ca !== cb) {
        const [full, cut] = ca ? [a, b] : [b, a];
        diff(
          '$.data',
          `all ${(records(full) ?? []).length} record(s) of the query, as the other answer (complete) holds`,
          `${(records(cut) ?? []).length} record(s), its limit reached`,
        );
      }
      break;
    }
    case 'cek-trx-id': {
      const da = (ba.data ?? {}) as Body;
      const db = (bb.data ?? {}) as Body;
      for (const k of ['trx_id', 'status'] as const) if (da[k] !== db[k]) diff(`$.data.${k}`, da[k], db[k]);
      break;
    }
    case 'saldo-user':
      if (typeof ba.saldo !== typeof bb.saldo) diff('$.saldo (type)', typeof ba.saldo, typeof bb.saldo);
      break;
  }
  for (const [path, x, y] of echoesMissed(api, a, b, ba, bb)) if (!out.some((f) => f.path === path)) diff(path, x, y);
  return out;
}

/** Where an answer says back its own request's values: every path outside arrays, a few levels deep. */
function stringPaths(v: unknown, path = '$', depth = 0): [string, string][] {
  if (typeof v === 'string') return [[path, v]];
  if (depth > 4 || typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => stringPaths(x, `${path}.${k}`, depth + 1));
}

/**
 * Where one answer says back a value of its request (the name sent as `name`, in `detail.nama`) and the other,
 * sent the same parameter under another name or method, says back its own nowhere: the other did not read it.
 * "Same payload" holds for fields the document does not name too, where they show what was asked. Values of two
 * characters or more, numbers in either form.
 */
function echoesMissed(api: ApiModel, a: Exchange, b: Exchange, ba: Body, bb: Body): [string, unknown, unknown][] {
  const sa = api.foldRequest(a.endpoint, a.params).params;
  const sb = api.foldRequest(b.endpoint, b.params).params;
  const same = (x: unknown, sent: unknown): boolean =>
    x === String(sent) || (/^\d{9,}$/.test(to62(sent)) && to62(x) === to62(sent));
  const atB = stringPaths(bb);
  const out: [string, unknown, unknown][] = [];
  for (const [param, sent] of Object.entries(sa)) {
    if (param === 'api_key' || typeof sent !== 'string' || sent.length < 2 || sb[param] === undefined) continue;
    // Said back anywhere in the other answer counts: an echo keyed by the names the caller used moves with them.
    if (atB.some(([, y]) => same(y, sb[param]))) continue;
    for (const [path, x] of stringPaths(ba))
      if (same(x, sent)) out.push([path, x, atB.find(([p]) => p === path)?.[1] ?? '(nowhere)']);
  }
  return out;
}

/** The parameter names a request used (never their values). */
function paramNames(ex: Exchange): string {
  return `(${Object.keys(ex.params).join(',')})`;
}

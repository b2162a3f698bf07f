import { randomUUID } from 'node:crypto';
import { to08 } from '../openapi/numbers.js';
import type { Endpoint } from '../openapi/types.js';
import type { Answer } from './answer.js';
import type { Reading } from './legal.js';

/** Other words a provider might use for the simulator's refusal statuses. */
const OTHER_WORDS: Record<string, string> = {
  INVALID_API_KEY: 'UNAUTHORIZED',
  MISSING_PARAMETER: 'PARAMETER_KURANG',
  DUPLICATE_TRX_ID: 'TRXID_SUDAH_DIPAKAI',
  TRX_NOT_FOUND: 'DATA_TIDAK_DITEMUKAN',
  UNKNOWN_PRODUCT: 'PRODUK_TIDAK_ADA',
  NO_FREE_SLOT: 'SLOT_PENUH',
  INSUFFICIENT_BALANCE: 'SALDO_TIDAK_CUKUP',
};

/** The word a provider of this reading uses for one of the simulator's refusal statuses. */
export function refusalWord(r: Reading, status: string): string {
  if (r['refusal-words'] === 'lower') return status.toLowerCase();
  if (r['refusal-words'] === 'other') return OTHER_WORDS[status] ?? `GAGAL_${status}`;
  return status;
}

/**
 * Shapes an answer of the business rules the way a provider of this reading would: refusal words and HTTP
 * status, `message` on other successes, number forms in history, undocumented fields. Never changes an
 * outcome: `ok`, SUCCESS, documented fields and their values stay as they are.
 */
export function presentAnswer(answer: Answer, endpoint: Endpoint | undefined, r: Reading): Answer {
  const body = structuredClone(answer.body);
  const extra = r.extra === 'everywhere';
  if (body.ok === false) {
    const status = String(body.status);
    body.status = refusalWord(r, status);
    if (extra) {
      body.error_code = answer.http;
      body.errors = [{ reason: status.toLowerCase(), detail: { hint: 'see message' } }];
    }
    // A rate limit and a server error keep their codes: they are not a refusal of the request's content.
    const keep = answer.http === 429 || answer.http >= 500;
    return { ...answer, http: r['refusal-http'] === '200' && !keep ? 200 : answer.http, body };
  }
  if (body.ok !== true) return { ...answer, body };
  if (r.message === 'present' && endpoint !== 'invite-member' && body.message === undefined) body.message = 'Berhasil';
  if (Array.isArray(body.data)) {
    body.data = body.data.map((rec: Record<string, unknown>) => ({
      ...rec,
      ...(r['manager-form'] === '08' ? { manager_number: to08(rec.manager_number as string) } : {}),
      ...(r['member-form'] === '08' ? { member_number: to08(rec.member_number as string) } : {}),
      ...(extra ? { channel: 'h2h', meta: { source: 'h2h', flags: ['settled'] } } : {}),
    }));
  } else if (extra && body.data && typeof body.data === 'object') {
    body.data = { ...(body.data as object), checked_at: new Date().toISOString(), meta: { cached: false } };
  }
  if (extra) {
    body.server_time = new Date().toISOString();
    body.request_id = randomUUID();
    body.meta = { api: 'h2h', version: 2, links: { docs: '/docs' } };
    if (body.detail && typeof body.detail === 'object')
      body.detail = { ...(body.detail as object), quota: '10GB', package: { kind: 'group', renews: false } };
  }
  return { ...answer, body };
}

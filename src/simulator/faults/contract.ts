import type { Params } from '../../openapi/types.js';
import { swapCase } from '../../shared/letter-case.js';
import type { Fault } from './fault.js';

/** The request without the alias names (not the canonical one) of the given parameters. */
function withoutAliases(raw: Params, names: (canonical: string) => readonly string[], params: string[]): Params {
  const drop = params.flatMap((p) => names(p).slice(1));
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !drop.includes(k)));
}

/**
 * Contract faults, at least one per clause. A fault that only rewrites a request or an answer is a row of
 * this table; the others bend a business rule, each in one named place (state.ts and its parts, by
 * `faultOn(name)`).
 */
export const CONTRACT_FAULTS = [
  {
    name: 'envelope-no-status',
    clause: 'ENV-1',
    description: 'refusals lack the `status` field',
    refusal: (b) => {
      delete b.status;
    },
  },
  {
    name: 'post-duplicates-record',
    clause: 'ENV-2',
    description:
      'POST history-transaksi answers one record twice when the answer holds 2 or more and fewer than its limit',
    answer: (b, c) => {
      const limit = Number(c.params.limit ?? Number.POSITIVE_INFINITY);
      if (c.endpoint !== 'history-transaksi' || c.method !== 'POST' || !Array.isArray(b.data)) return;
      // The record with the least trx_id, so that two POST answers of one query (in any order) agree.
      const first = [...b.data].sort((x, y) => String(x.trx_id).localeCompare(String(y.trx_id)))[0];
      if (b.data.length >= 2 && b.data.length + 1 <= limit) b.data = [...b.data, first];
    },
  },
  {
    name: 'alias-ignored',
    clause: 'ENV-3',
    description: 'invite-member ignores the product_code aliases produk and code (the invite then lacks its product)',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member' ? withoutAliases(raw, names, ['product_code']) : raw,
  },
  {
    name: 'filter-aliases-ignored',
    clause: 'ENV-3',
    also: ['HIS-3', 'HIS-4'],
    description:
      'history filter aliases (search, nomor, tanggal, bulan, tahun: x-aliases of q, date, month, year) are ignored',
    request: (raw, endpoint, names) =>
      endpoint === 'history-transaksi' ? withoutAliases(raw, names, ['q', 'date', 'month', 'year']) : raw,
  },
  {
    name: 'success-status-ok',
    clause: 'ENV-4',
    description: 'successful history-transaksi and cek-trx-id answers carry status "OK" instead of SUCCESS',
    answer: (b, c) => {
      if ('status' in b && (c.endpoint === 'history-transaksi' || c.endpoint === 'cek-trx-id')) b.status = 'OK';
    },
  },
  { name: 'auth-any-key', clause: 'AUTH-1', description: 'any non-empty api_key is accepted as the demo account' },
  {
    name: 'saldo-as-string',
    clause: 'BAL-1',
    description: 'saldo is sent as a string',
    answer: (b) => {
      if (typeof b.saldo === 'number') b.saldo = String(b.saldo);
    },
  },
  { name: 'invite-credits-balance', clause: 'BAL-2', description: 'a successful invite adds its price to the balance' },
  {
    name: 'history-date-format',
    clause: 'HIS-1',
    description: 'history dates are sent as DD-MM-YYYY',
    answer: (b, c) => {
      if (c.endpoint !== 'history-transaksi' || !Array.isArray(b.data)) return;
      b.data = b.data.map((r: Record<string, unknown>) => ({
        ...r,
        date: String(r.date).split('-').reverse().join('-'),
      }));
    },
  },
  {
    // Any answer may come: the gate's own reads of history (discovery, settling) must survive it and judge it.
    name: 'history-records-null',
    clause: 'HIS-1',
    also: ['INV-6'],
    description: 'every record of a history answer is null (so the run’s own invites never show as records)',
    answer: (b, c) => {
      if (c.endpoint === 'history-transaksi' && Array.isArray(b.data)) b.data = b.data.map(() => null);
    },
  },
  { name: 'limit-ignored', clause: 'HIS-2', description: 'the limit parameter is ignored' },
  { name: 'date-filters-ignored', clause: 'HIS-3', description: 'date, month and year filters are ignored' },
  { name: 'q-ignored', clause: 'HIS-4', description: 'the q filter is ignored' },
  {
    name: 'q-misses-trx-id',
    clause: 'HIS-5',
    also: ['INV-6'],
    description: 'q matches numbers and products but not transaction IDs (INV-6 looks for an invite by q=<trx_id>)',
  },
  {
    name: 'q-misses-manager',
    clause: 'HIS-5',
    description: 'q matches the member number, the transaction ID and the product, not the manager number',
  },
  {
    name: 'lookup-wrong-id',
    clause: 'TRX-1',
    description: 'cek-trx-id echoes the transaction ID in the wrong letter case',
    answer: (b, c) => {
      const data = b.data as Record<string, unknown> | undefined;
      if (c.endpoint === 'cek-trx-id' && data && typeof data.trx_id === 'string') data.trx_id = swapCase(data.trx_id);
    },
  },
  { name: 'lookup-phantom', clause: 'TRX-2', description: 'cek-trx-id answers SUCCESS for any transaction ID' },
  {
    name: 'invite-slot-number',
    clause: 'INV-1',
    description: 'detail.slot is sent as a number',
    answer: (b) => {
      const d = b.detail as Record<string, unknown> | undefined;
      if (d && typeof d.slot === 'string') d.slot = Number(d.slot);
    },
  },
  {
    name: 'invite-member-raw',
    clause: 'INV-2',
    also: ['INV-1'],
    description: 'detail.member echoes the msisdn as sent, 08-form included (INV-1 asks for 62-form)',
    answer: (b, c) => {
      const d = b.detail as Record<string, unknown> | undefined;
      if (d && c.endpoint === 'invite-member') d.member = String(c.params.msisdn);
    },
  },
  { name: 'msisdn-unchecked', clause: 'INV-3', description: 'any msisdn that is sent is accepted' },
  { name: 'kind-unchecked', clause: 'INV-4', description: 'any kind is accepted' },
  {
    name: 'duplicate-trx-accepted',
    clause: 'INV-5',
    description: 'a used trx_id creates a second transaction and a second charge',
  },
  {
    name: 'invite-not-recorded',
    clause: 'INV-6',
    also: ['INV-5'],
    description:
      'successful invites are not recorded in history or lookup (so a repeat of their trx_id is carried out again)',
  },
] as const satisfies readonly Fault[];

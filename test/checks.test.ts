import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKS } from '../src/checks/index.ts';
import { judgeClauses } from '../src/checks/judge.ts';
import type { Evidence } from '../src/checks/types.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import { CLAUSE_IDS, type ClauseId } from '../src/openapi/types.ts';
import { ex } from './helpers.ts';

// Hand-made request/response pairs, one table row per clause: evidence that keeps it and evidence that breaks it.
// No simulator is involved: these prove the checks themselves.

const api = loadApiModel();
const K = 'k-0000';
const saldo = (n: unknown, method: 'GET' | 'POST' = 'POST') =>
  ex('saldo-user', { api_key: K }, { ok: true, status: 'SUCCESS', saldo: n }, { method });
const rec = (trx: string, date: string, member = '6281234567890', manager = '6281100000001') => ({
  trx_id: trx,
  manager_number: manager,
  member_number: member,
  date,
});
const hist = (params: Record<string, unknown>, data: unknown[], method: 'GET' | 'POST' = 'POST') =>
  ex('history-transaksi', { api_key: K, ...params }, { ok: true, status: 'SUCCESS', data }, { method });
const inviteReq = { api_key: K, trx_id: 'T-1', product_code: 'AKRAB-10GB', msisdn: '081234567890', kind: 'akrab' };
const inviteOk = (detail: Record<string, unknown> = {}, trx = 'T-1') => ({
  ok: true,
  status: 'SUCCESS',
  message: 'added',
  trx_id: trx,
  detail: { manager: '6281100000001', member: '6281234567890', slot: '3', ...detail },
});
const refused = { ok: false, status: 'INVALID_API_KEY', message: 'no' };

interface Row {
  clause: ClauseId;
  keep: Evidence[];
  breaks: [string, Evidence][];
}

const invite = ex('invite-member', inviteReq, inviteOk());
const lookupOk = ex(
  'cek-trx-id',
  { api_key: K, trx_id: 'T-1' },
  { ok: true, status: 'SUCCESS', data: { trx_id: 'T-1', status: 'SUCCESS' } },
);
const histT1 = hist({ q: 'T-1', limit: 10 }, [rec('T-1', '2026-11-22')]);

const TABLE: Row[] = [
  {
    clause: 'ENV-1',
    keep: [{ exchange: saldo(5) }, { exchange: ex('saldo-user', {}, refused, { http: 401 }) }],
    breaks: [
      ['html body', { exchange: ex('saldo-user', { api_key: K }, undefined, { http: 502 }) }],
      ['ok as string', { exchange: ex('saldo-user', { api_key: K }, { ok: 'true', status: 'SUCCESS', saldo: 1 }) }],
      ['no status', { exchange: ex('saldo-user', { api_key: K }, { ok: true, saldo: 1 }) }],
      ['array body', { exchange: ex('saldo-user', { api_key: K }, [1, 2]) }],
    ],
  },
  {
    clause: 'ENV-2',
    keep: [
      {
        pair: [
          hist({ limit: 5 }, [rec('A', '2026-01-01'), rec('B', '2026-01-02')], 'GET'),
          hist({ limit: 5 }, [rec('B', '2026-01-02'), rec('A', '2026-01-01')]),
        ],
      },
      { pair: [saldo(5, 'GET'), saldo(7)] },
      // Two pages of a longer result: no order is assumed, so they may differ.
      {
        pair: [
          hist({ limit: 2 }, [rec('A', '2026-01-01'), rec('B', '2026-01-02')], 'GET'),
          hist({ limit: 2 }, [rec('C', '2026-01-03'), rec('A', '2026-01-01')]),
        ],
      },
      // Numbers in another form, undocumented fields with other values: not the payload.
      {
        pair: [
          hist({ limit: 5 }, [{ ...rec('A', '2026-01-01'), seen_at: 1 }], 'GET'),
          hist({ limit: 5 }, [{ ...rec('A', '2026-01-01', '081234567890', '081100000001'), seen_at: 2 }]),
        ],
      },
      // The account grew between the calls (N, of the newest day) and the later page, one short of its limit, lacks
      // only the oldest record: its own cut (HIS-5 judges it on that answer), not a difference of the methods.
      {
        pair: [
          hist({ limit: 3 }, [rec('B', '2026-11-26'), rec('A', '2026-11-25')], 'GET'),
          hist({ limit: 3 }, [rec('N', '2026-11-27'), rec('B', '2026-11-26')]),
        ],
      },
      // Two invites: each echoes its own trx_id; the provider picks manager and slot per invite.
      {
        pair: [
          ex('invite-member', { ...inviteReq, trx_id: 'T-1' }, inviteOk({}, 'T-1'), { method: 'GET' }),
          ex(
            'invite-member',
            { ...inviteReq, trx_id: 'T-2' },
            inviteOk({ manager: '6281100000009', slot: '7' }, 'T-2'),
          ),
        ],
      },
    ],
    breaks: [
      [
        'invite echoes the other trx_id',
        {
          pair: [
            ex('invite-member', { ...inviteReq, trx_id: 'T-1' }, inviteOk({}, 'T-1'), { method: 'GET' }),
            ex('invite-member', { ...inviteReq, trx_id: 'T-2' }, inviteOk({}, 'T-1')),
          ],
        },
      ],
      [
        'invite places another member',
        {
          pair: [
            ex('invite-member', { ...inviteReq, trx_id: 'T-1' }, inviteOk({}, 'T-1'), { method: 'GET' }),
            ex('invite-member', { ...inviteReq, trx_id: 'T-2' }, inviteOk({ member: '6281234567891' }, 'T-2')),
          ],
        },
      ],
      [
        'one answer complete, the other at its limit',
        {
          pair: [
            // B is older than A: not the account growing between the calls (that would be a record of its newest day).
            hist({ limit: 2 }, [rec('A', '2026-01-01')], 'GET'),
            hist({ limit: 2 }, [rec('A', '2026-01-01'), rec('B', '2025-12-31')]),
          ],
        },
      ],
      [
        'a record missing in the middle while the account grew',
        {
          pair: [
            hist({ limit: 3 }, [rec('B', '2026-11-26'), rec('A', '2026-11-25')], 'GET'),
            hist({ limit: 3 }, [rec('N', '2026-11-27'), rec('A', '2026-11-25')]),
          ],
        },
      ],
      [
        'record missing on POST',
        {
          pair: [
            hist({ limit: 5 }, [rec('A', '2026-01-01'), rec('B', '2026-01-02')], 'GET'),
            hist({ limit: 5 }, [rec('A', '2026-01-01')]),
          ],
        },
      ],
      ['status differs', { pair: [saldo(5, 'GET'), ex('saldo-user', { api_key: K }, refused)] }],
      ['saldo type differs', { pair: [saldo(5, 'GET'), saldo('5')] }],
    ],
  },
  {
    clause: 'ENV-3',
    keep: [
      {
        pair: [
          hist({ date: '2026-01-01', limit: 5 }, [rec('A', '2026-01-01')]),
          hist({ tanggal: '2026-01-01', limit: 5 }, [rec('A', '2026-01-01')]),
        ],
      },
    ],
    breaks: [
      [
        'alias ignored',
        {
          pair: [
            hist({ date: '2026-01-01', limit: 5 }, [rec('A', '2026-01-01')]),
            hist({ tanggal: '2026-01-01', limit: 5 }, [rec('A', '2026-01-01'), rec('B', '2026-02-01')]),
          ],
        },
      ],
      ['alias refused', { pair: [saldo(1), ex('saldo-user', { key: K }, refused)] }],
    ],
  },
  {
    clause: 'ENV-4',
    keep: [{ exchange: saldo(1) }, { exchange: ex('saldo-user', {}, refused, { http: 401 }) }],
    breaks: [
      ['ok true status OK', { exchange: ex('saldo-user', { api_key: K }, { ok: true, status: 'OK', saldo: 1 }) }],
      ['ok false status SUCCESS', { exchange: ex('saldo-user', { api_key: K }, { ok: false, status: 'SUCCESS' }) }],
      [
        'ok true on HTTP 500',
        { exchange: ex('saldo-user', { api_key: K }, { ok: true, status: 'SUCCESS', saldo: 1 }, { http: 500 }) },
      ],
    ],
  },
  {
    clause: 'AUTH-1',
    keep: [
      { exchange: ex('saldo-user', { api_key: 'wrong' }, refused) },
      { exchange: ex('history-transaksi', { api_key: 'wrong' }, { ok: false, status: 'X', data: [] }) },
      // Field names are not account data: a refusal may say why in `detail`, carry `data: {}` or nulls.
      { exchange: ex('saldo-user', { api_key: 'wrong' }, { ok: false, status: 'X', detail: 'Invalid API key' }) },
      { exchange: ex('saldo-user', { api_key: 'wrong' }, { ok: false, status: 'X', saldo: null, data: {} }) },
      {
        exchange: ex('cek-trx-id', { api_key: 'wrong' }, { ok: false, status: 'X', data: { errors: { key: 'bad' } } }),
      },
      // The request's own values said back reveal nothing of the account (the number, in either form; the ID).
      {
        exchange: ex(
          'invite-member',
          { api_key: 'wrong', msisdn: '081299900001' },
          { ok: false, status: 'X', detail: { member: '6281299900001' } },
        ),
      },
      {
        exchange: ex(
          'cek-trx-id',
          { api_key: 'wrong', trx_id: 'T-9' },
          { ok: false, status: 'X', data: { trx_id: 'T-9', status: 'INVALID_API_KEY' } },
        ),
      },
      // The documented shape kept with empty values, and a balance of 0, say nothing of the account.
      {
        exchange: ex(
          'invite-member',
          { api_key: 'wrong' },
          { ok: false, status: 'X', detail: { manager: '', member: '', slot: '' }, saldo: 0 },
        ),
      },
      {
        exchange: ex('cek-trx-id', { api_key: 'wrong' }, { ok: false, status: 'X', data: { trx_id: '', status: '' } }),
      },
    ],
    breaks: [
      ['ok true', { exchange: ex('saldo-user', { api_key: 'wrong' }, { ok: true, status: 'SUCCESS', saldo: 1 }) }],
      [
        'refused but saldo shown',
        { exchange: ex('saldo-user', { api_key: 'wrong' }, { ok: false, status: 'X', saldo: 1 }) },
      ],
      [
        'refused but records shown',
        {
          exchange: ex(
            'history-transaksi',
            { api_key: '' },
            { ok: false, status: 'X', data: [rec('A', '2026-01-01')] },
          ),
        },
      ],
      [
        'refused but detail shown',
        { exchange: ex('invite-member', {}, { ok: false, status: 'X', detail: { member: '62811' } }) },
      ],
      [
        'refused but records nested deeper',
        {
          exchange: ex(
            'history-transaksi',
            { api_key: 'wrong' },
            {
              ok: false,
              status: 'X',
              data: { items: [{ trx_id: 'T-1', member_number: '6281234', date: '2026-01-01' }] },
            },
          ),
        },
      ],
      [
        'refused but a balance under another name',
        { exchange: ex('saldo-user', { api_key: 'wrong' }, { ok: false, status: 'X', account: { balance: 25000 } }) },
      ],
      [
        "refused but the asked transaction's own state",
        {
          exchange: ex(
            'cek-trx-id',
            { api_key: 'wrong', trx_id: 'T-9' },
            { ok: false, status: 'X', data: { trx_id: 'T-9', status: 'FAILED' } },
          ),
          knownStatus: 'FAILED',
        },
      ],
    ],
  },
  {
    clause: 'BAL-1',
    // "saldo a number": the documented response has an integer, and a balance with cents keeps the clause too.
    keep: [
      { exchange: saldo(150000) },
      { exchange: saldo(0) },
      { exchange: saldo(98765432.5) },
      { exchange: saldo(2 ** 33) },
    ],
    breaks: [
      ['string saldo', { exchange: saldo('150000') }],
      ['null saldo', { exchange: saldo(null) }],
      ['missing saldo', { exchange: ex('saldo-user', { api_key: K }, { ok: true, status: 'SUCCESS' }) }],
      ['refused', { exchange: ex('saldo-user', { api_key: K }, refused) }],
    ],
  },
  {
    clause: 'BAL-2',
    keep: [{ invite, saldoBefore: saldo(100), saldoAfter: saldo(55) }],
    breaks: [['balance rose', { invite, saldoBefore: saldo(100), saldoAfter: saldo(145) }]],
  },
  {
    clause: 'HIS-1',
    keep: [{ exchange: hist({}, [rec('A', '2026-01-01')]) }, { exchange: hist({}, []) }],
    breaks: [
      ['DD-MM-YYYY date', { exchange: hist({}, [rec('A', '01-01-2026')]) }],
      ['impossible date', { exchange: hist({}, [rec('A', '2026-02-30')]) }],
      ['numeric trx_id', { exchange: hist({}, [{ ...rec('A', '2026-01-01'), trx_id: 7 }]) }],
      [
        'data not an array',
        { exchange: ex('history-transaksi', { api_key: K }, { ok: true, status: 'SUCCESS', data: {} }) },
      ],
    ],
  },
  {
    clause: 'HIS-2',
    keep: [
      { exchange: hist({ limit: '2' }, [rec('A', '2026-01-01'), rec('B', '2026-01-01')]) },
      // A spelling the provider does not document (a leading zero) is its own to read, or to ignore.
      { exchange: hist({ limit: '01' }, [rec('A', '2026-01-01'), rec('B', '2026-01-01')]) },
    ],
    breaks: [
      [
        'three for limit=2',
        { exchange: hist({ limit: 2 }, [rec('A', '2026-01-01'), rec('B', '2026-01-01'), rec('C', '2026-01-01')]) },
      ],
    ],
  },
  {
    clause: 'HIS-3',
    keep: [
      { exchange: hist({ date: '2026-01-01', bulan: '01', tahun: '2026' }, [rec('A', '2026-01-01')]) },
      // Spellings the provider does not document may be ignored: month 1, a date with slashes.
      { exchange: hist({ month: '1' }, [rec('A', '2026-02-01')]) },
      { exchange: hist({ date: '2026/01/01' }, [rec('A', '2026-02-01')]) },
    ],
    breaks: [
      ['other date', { exchange: hist({ date: '2026-01-01' }, [rec('A', '2026-01-02')]) }],
      ['other month', { exchange: hist({ month: '02' }, [rec('A', '2026-01-02')]) }],
      ['other year by alias', { exchange: hist({ tahun: '2025' }, [rec('A', '2026-01-02')]) }],
    ],
  },
  {
    clause: 'HIS-4',
    keep: [
      { exchange: hist({ q: 'T-9' }, [rec('T-9', '2026-01-01')]) },
      { exchange: hist({ search: '081234567890' }, [rec('X', '2026-01-01')]) },
      // 'e' may be in a product, shown or not (a code shown, its name matched): judged only with an S no
      // product can contain.
      { exchange: hist({ q: 'e' }, [rec('T-9', '2026-01-01')]) },
      { exchange: hist({ q: 'x' }, [{ ...rec('T-9', '2026-01-01'), product: 'AKRAB-10GB' }]) },
    ],
    breaks: [
      // A transaction ID of eight characters or more: no product holds it (a shorter one may stand in a name).
      [
        'record without S',
        { exchange: hist({ q: 'TRX-9001' }, [rec('TRX-9001', '2026-01-01'), rec('TRX-8001', '2026-01-01')]) },
      ],
      ['phone number not in it', { exchange: hist({ q: '6289999999999' }, [rec('T-9', '2026-01-01')]) }],
    ],
  },
  {
    clause: 'HIS-5',
    keep: [
      { exchange: hist({ q: 'T-9', limit: 5 }, [rec('T-9', '2026-01-01')]), expectedRecord: rec('T-9', '2026-01-01') },
      // A page at its limit may hold the record on another page.
      {
        exchange: hist({ q: '2026', limit: 1 }, [rec('T-8', '2026-01-01')]),
        expectedRecord: rec('T-9', '2026-01-01'),
      },
      // A month without its year may be read as the current year's; a combination of filters may be refused.
      { exchange: hist({ month: '01', limit: 5 }, []), expectedRecord: rec('T-9', '2025-01-01') },
      {
        exchange: ex('history-transaksi', { api_key: K, date: '2026-01-01', q: 'T-9' }, { ok: false, status: 'X' }),
        expectedRecord: rec('T-9', '2026-01-01'),
      },
    ],
    breaks: [
      ['record hidden', { exchange: hist({ q: 'T-9', limit: 5 }, []), expectedRecord: rec('T-9', '2026-01-01') }],
      [
        'month and year hide it',
        { exchange: hist({ month: '01', year: '2025', limit: 5 }, []), expectedRecord: rec('T-9', '2025-01-01') },
      ],
      [
        'one filter refused',
        {
          // Eight characters or more: a provider may refuse a shorter search text (its size limits are not shown).
          exchange: ex('history-transaksi', { api_key: K, q: 'TRX-9001' }, { ok: false, status: 'X' }),
          expectedRecord: rec('TRX-9001', '2026-01-01'),
        },
      ],
    ],
  },
  {
    clause: 'TRX-1',
    keep: [{ exchange: lookupOk }],
    breaks: [
      [
        'other id',
        {
          exchange: ex(
            'cek-trx-id',
            { api_key: K, trxid: 'T-1' },
            { ok: true, status: 'SUCCESS', data: { trx_id: 't-1', status: 'SUCCESS' } },
          ),
        },
      ],
      [
        'no status',
        {
          exchange: ex(
            'cek-trx-id',
            { api_key: K, trx_id: 'T-1' },
            { ok: true, status: 'SUCCESS', data: { trx_id: 'T-1' } },
          ),
        },
      ],
    ],
  },
  {
    clause: 'TRX-2',
    keep: [
      { exchange: ex('cek-trx-id', { api_key: K, trx_id: 'NOPE' }, { ok: false, status: 'TRX_NOT_FOUND' }) },
      // ok true without a record: nothing found, which is no phantom.
      { exchange: ex('cek-trx-id', { api_key: K, trx_id: 'NOPE' }, { ok: true, status: 'SUCCESS', data: null }) },
      { exchange: ex('cek-trx-id', { api_key: K, trx_id: 'NOPE' }, { ok: true, status: 'SUCCESS', data: [] }) },
    ],
    breaks: [
      [
        'phantom record',
        {
          exchange: ex(
            'cek-trx-id',
            { api_key: K, trx_id: 'NOPE' },
            { ok: true, status: 'SUCCESS', data: { trx_id: 'NOPE', status: 'SUCCESS' } },
          ),
        },
      ],
    ],
  },
  {
    clause: 'INV-1',
    keep: [{ exchange: invite }],
    breaks: [
      ['numeric slot', { exchange: ex('invite-member', inviteReq, inviteOk({ slot: 3 })) }],
      ['other trx_id', { exchange: ex('invite-member', inviteReq, inviteOk({}, 'T-2')) }],
      ['manager not 62', { exchange: ex('invite-member', inviteReq, inviteOk({ manager: '081100000001' })) }],
    ],
  },
  {
    clause: 'INV-2',
    keep: [
      { exchange: invite },
      { exchange: ex('invite-member', { ...inviteReq, nomor: '6281234567890', msisdn: undefined }, inviteOk()) },
    ],
    breaks: [
      ['08 echoed', { exchange: ex('invite-member', inviteReq, inviteOk({ member: '081234567890' })) }],
      ['other number', { exchange: ex('invite-member', inviteReq, inviteOk({ member: '6281234567899' })) }],
    ],
  },
  {
    clause: 'INV-3',
    keep: [
      { exchange: ex('invite-member', { ...inviteReq, msisdn: '12345' }, { ok: false, status: 'INVALID_MSISDN' }) },
    ],
    breaks: [['accepted', { exchange: ex('invite-member', { ...inviteReq, msisdn: '12345' }, inviteOk()) }]],
  },
  {
    clause: 'INV-4',
    keep: [
      { exchange: ex('invite-member', { ...inviteReq, kind: 'family' }, { ok: false, status: 'INVALID_KIND' }) },
      // Without the envelope no refusal is told from a success: ENV-1's breach alone.
      { exchange: ex('invite-member', { ...inviteReq, kind: 'family' }, undefined) },
    ],
    breaks: [['accepted', { exchange: ex('invite-member', { ...inviteReq, kind: 'family' }, inviteOk()) }]],
  },
  {
    clause: 'INV-5',
    keep: [
      {
        invite,
        repeats: [ex('invite-member', inviteReq, { ok: false, status: 'DUPLICATE_TRX_ID' })],
        history: histT1,
        saldoBefore: saldo(100),
        saldoBetween: saldo(55),
        saldoAfter: saldo(55),
      },
      // A balance with a fraction: one price measured as 10000, charged as 10000.000000000015 in floating point.
      {
        invite,
        repeats: [ex('invite-member', inviteReq, { ok: false, status: 'DUPLICATE_TRX_ID' })],
        history: histT1,
        saldoBefore: saldo(140000.7),
        saldoAfter: saldo(130000.7),
        unitPrice: 150000.7 - 140000.7,
      },
    ],
    breaks: [
      [
        'two records',
        {
          invite,
          repeats: [invite],
          history: hist({ q: 'T-1' }, [rec('T-1', '2026-11-22'), rec('T-1', '2026-11-22')]),
          saldoBefore: saldo(100),
          saldoBetween: saldo(55),
          saldoAfter: saldo(55),
        },
      ],
      [
        'charged twice',
        {
          invite,
          repeats: [invite],
          history: histT1,
          saldoBefore: saldo(100),
          saldoBetween: saldo(55),
          saldoAfter: saldo(10),
        },
      ],
      [
        'charged twice, concurrent',
        { invite, repeats: [invite], history: histT1, saldoBefore: saldo(100), saldoAfter: saldo(10), unitPrice: 45 },
      ],
    ],
  },
  {
    clause: 'INV-6',
    keep: [
      {
        invite,
        lookup: lookupOk,
        history: hist({ q: 'T-1' }, [rec('T-1', '2026-11-22', '081234567890', '081100000001')]),
      },
      {
        // Numbers in the international form: +62 is 62-form too.
        invite,
        lookup: lookupOk,
        history: hist({ q: 'T-1' }, [rec('T-1', '2026-11-22', '+6281234567890', '+6281100000001')]),
      },
    ],
    breaks: [
      [
        'not in lookup',
        {
          invite,
          lookup: ex('cek-trx-id', { api_key: K, trx_id: 'T-1' }, { ok: false, status: 'TRX_NOT_FOUND' }),
          history: histT1,
        },
      ],
      ['not in history', { invite, lookup: lookupOk, history: hist({ q: 'T-1' }, []) }],
      [
        'other member in history',
        { invite, lookup: lookupOk, history: hist({ q: 'T-1' }, [rec('T-1', '2026-11-22', '6289999999999')]) },
      ],
    ],
  },
];

/** Where each breaking row must be caught: a finding at another path would not prove the clause. */
const BREAKS_AT: Record<string, string> = {
  'ENV-1: html body': '$',
  'ENV-1: ok as string': '$.ok',
  'ENV-1: no status': '$.status',
  'ENV-1: array body': '$',
  'ENV-2: invite echoes the other trx_id': '$.trx_id',
  'ENV-2: invite places another member': '$.detail.member',
  'ENV-2: one answer complete, the other at its limit': '$.data',
  'ENV-2: a record missing in the middle while the account grew': '$.data',
  'ENV-2: record missing on POST': '$.data',
  'ENV-2: status differs': '$.status',
  'ENV-2: saldo type differs': '$.saldo (type)',
  'ENV-3: alias ignored': '$.data',
  'ENV-3: alias refused': '$.ok',
  'ENV-4: ok true status OK': '$.status',
  'ENV-4: ok false status SUCCESS': '$.ok',
  'ENV-4: ok true on HTTP 500': '$.ok',
  'AUTH-1: ok true': '$.ok',
  'AUTH-1: refused but saldo shown': '$.saldo',
  'AUTH-1: refused but records shown': '$.data',
  'AUTH-1: refused but detail shown': '$.detail',
  'AUTH-1: refused but records nested deeper': '$.data',
  'AUTH-1: refused but a balance under another name': '$.account',
  "AUTH-1: refused but the asked transaction's own state": '$.data',
  'BAL-1: string saldo': '$.saldo',
  'BAL-1: null saldo': '$.saldo',
  'BAL-1: missing saldo': '$.saldo',
  'BAL-1: refused': '$.ok',
  'BAL-2: balance rose': '$.saldo',
  'HIS-1: DD-MM-YYYY date': '$.data[0].date',
  'HIS-1: impossible date': '$.data[0].date',
  'HIS-1: numeric trx_id': '$.data[0].trx_id',
  'HIS-1: data not an array': '$.data',
  'HIS-2: three for limit=2': '$.data.length',
  'HIS-3: other date': '$.data[0].date',
  'HIS-3: other month': '$.data[0].date',
  'HIS-3: other year by alias': '$.data[0].date',
  'HIS-4: record without S': '$.data[1]',
  'HIS-4: phone number not in it': '$.data[0]',
  'HIS-5: record hidden': '$.data',
  'HIS-5: month and year hide it': '$.data',
  'HIS-5: one filter refused': '$.data',
  'TRX-1: other id': '$.data.trx_id',
  'TRX-1: no status': '$.data.status',
  'TRX-2: phantom record': '$',
  'INV-1: numeric slot': '$.detail.slot',
  'INV-1: other trx_id': '$.trx_id',
  'INV-1: manager not 62': '$.detail.manager',
  'INV-2: 08 echoed': '$.detail.member',
  'INV-2: other number': '$.detail.member',
  'INV-3: accepted': '$.ok',
  'INV-4: accepted': '$.ok',
  'INV-5: two records': '$.data',
  'INV-5: charged twice': '$.saldo',
  'INV-5: charged twice, concurrent': '$.saldo',
  'INV-6: not in lookup': '$.data',
  'INV-6: not in history': '$.data',
  'INV-6: other member in history': '$.data[].member_number',
};

describe('clause checks on hand-made evidence', () => {
  it('the table covers every clause of contract-clauses.md', () => {
    assert.deepEqual(
      TABLE.map((r) => r.clause),
      [...CLAUSE_IDS],
    );
    assert.deepEqual(Object.keys(CHECKS), [...CLAUSE_IDS]);
  });

  for (const row of TABLE) {
    it(`${row.clause} passes on evidence that keeps it`, () => {
      for (const ev of row.keep) assert.deepEqual(judgeClauses(api, [row.clause], ev), [], `${row.clause} keep case`);
    });
    for (const [label, ev] of row.breaks) {
      it(`${row.clause} fails on: ${label}`, () => {
        const found = judgeClauses(api, [row.clause], ev);
        assert.ok(found.length > 0, `${row.clause} should fail on ${label}`);
        const at = BREAKS_AT[`${row.clause}: ${label}`];
        assert.ok(at, `BREAKS_AT names where '${row.clause}: ${label}' breaks`);
        assert.ok(
          found.some((f) => f.path === at),
          `${row.clause} on ${label}: a finding at ${at}, got ${found.map((f) => f.path).join(', ')}`,
        );
        for (const f of found) {
          assert.equal(f.clause, row.clause);
          assert.ok(
            f.expected && f.actual && f.path.startsWith('$'),
            `finding names path, expected and actual: ${JSON.stringify(f)}`,
          );
        }
      });
    }
  }

  it('a finding names the alias that carried the request', () => {
    const [f] = judgeClauses(api, ['HIS-3'], {
      exchange: hist({ tanggal: '2026-01-01' }, [rec('A', '2026-01-02')], 'GET'),
    });
    assert.equal(f?.method, 'GET');
    assert.deepEqual(f?.aliases, ['tanggal']);
    assert.equal(f?.path, '$.data[0].date');
  });

  it('a check without the evidence it needs throws (a caller bug, not a finding)', () => {
    assert.throws(() => judgeClauses(api, ['INV-6'], { exchange: invite }), /check INV-6 needs evidence 'invite'/);
  });
});

describe('findings name their input', () => {
  it('a finding on a body sent as it is says which body (its parameters show none)', () => {
    const sent = {
      ...ex('saldo-user', {}, undefined),
      bodyText: '<html>error</html>',
      contentType: 'text/html',
      sentBody: { text: '[1,2]', contentType: 'application/json' },
    };
    const found = judgeClauses(api, ['ENV-1'], { exchange: sent });
    assert.ok(found.length > 0, 'an HTML page is no envelope');
    for (const f of found) assert.equal(f.input, 'body application/json: "[1,2]"');
  });
});

import type { Fault } from './fault.js';

/**
 * Faults at a boundary of the input: each breaks its clause only for one parameter name, one kind of value or one
 * range, so only a gate that crosses every value class with every name, method and kind of ID finds it.
 */
export const BOUNDARY_FAULTS = [
  {
    name: 'msisdn-07-via-alias',
    clause: 'INV-3',
    description: 'an msisdn beginning with 07 is accepted when sent as `number` or `nomor`, refused as `msisdn`',
  },
  {
    name: 'repeat-via-trxid',
    clause: 'INV-5',
    description: 'a used trx_id is accepted again (a second transaction and charge) when sent as `trxid`',
  },
  {
    name: 'lookup-upper-case',
    clause: 'TRX-1',
    description: 'cek-trx-id echoes the transaction ID upper-cased: a lower-case ID comes back changed',
    answer: (b, c) => {
      const data = b.data as Record<string, unknown> | undefined;
      if (c.endpoint === 'cek-trx-id' && data && typeof data.trx_id === 'string')
        data.trx_id = data.trx_id.toUpperCase();
    },
  },
  {
    name: 'unknown-digits-found',
    clause: 'TRX-2',
    description: "an unknown transaction ID made only of digits is answered with the account's newest record",
  },
  {
    name: 'msisdn-full-width',
    clause: 'INV-3',
    description: 'an msisdn in full-width digits is read as ASCII digits and accepted',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member'
        ? Object.fromEntries(
            Object.entries(raw).map(([k, v]) => [
              k,
              names('msisdn').includes(k) && typeof v === 'string'
                ? v.replace(/[０-９]/g, (d) => String(d.charCodeAt(0) - 0xff10))
                : v,
            ]),
          )
        : raw,
  },
  {
    name: 'missing-trx-with-name',
    clause: 'INV-4',
    description: 'an invite without trx_id is carried out (under a made-up trx_id) when it carries a name',
  },
  {
    name: 'credit-via-code',
    clause: 'BAL-2',
    description: 'an invite whose product is sent as `code` adds its price to the balance instead of charging it',
  },
  {
    name: 'post-ignores-year',
    clause: 'ENV-2',
    also: ['HIS-3'],
    description: 'POST history-transaksi ignores the year filter (year, tahun); GET keeps it',
    request: (raw, endpoint, names, method) =>
      endpoint === 'history-transaksi' && method === 'POST'
        ? Object.fromEntries(Object.entries(raw).filter(([k]) => !names('year').includes(k)))
        : raw,
  },
  {
    name: 'date-spills-to-day-before',
    clause: 'HIS-3',
    description: 'a date filter on the first day of a month also returns the records of the day before',
  },
  {
    name: 'history-skips-punctuated-trx',
    clause: 'INV-6',
    description:
      'an invite whose trx_id holds anything but letters and digits is found by cek-trx-id but never shows in history',
  },
  {
    name: 'year-give-or-take-one',
    clause: 'HIS-3',
    description: 'a year filter also returns the records of the year before and the year after',
  },
  {
    name: 'auth-refusal-as-problem',
    clause: 'ENV-1',
    description:
      'a missing, empty or wrong api_key is answered with an RFC 9457 problem object (no ok, no envelope); every other answer keeps it',
    refusal: (b, c) => {
      if (c.status !== 'INVALID_API_KEY') return;
      for (const k of Object.keys(b)) delete b[k];
      Object.assign(b, { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'api_key rejected' });
    },
  },
  {
    name: 'limit-over-from-10',
    clause: 'HIS-2',
    description: 'limit=N answers N+1 records when N is 10 or more',
  },
] as const satisfies readonly Fault[];

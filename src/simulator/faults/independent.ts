import type { Fault } from './fault.js';

/**
 * Breaches independent implementations of the API showed (written from the description alone, by people who had
 * not read this project), each kept as a fault once the gate caught it.
 */
export const INDEPENDENT_FAULTS = [
  {
    name: 'lookup-any-case',
    clause: 'TRX-2',
    description:
      'cek-trx-id finds an ID in any letter case (a case-insensitive collation): an unknown ID that differs from an existing one only in case finds that record',
  },
  {
    name: 'lookup-prefix-found',
    clause: 'TRX-2',
    description:
      'cek-trx-id answers an unknown ID of 3 characters or more that begins an existing one with that record',
  },
  {
    name: 'name-outside-latin1-unrecorded',
    clause: 'INV-6',
    description:
      'an invite whose name holds a character outside Latin-1 is carried out and charged, but never shows in history or cek-trx-id',
  },
  {
    name: 'empty-msisdn-post-missing',
    clause: 'ENV-2',
    description: 'an empty msisdn is refused as INVALID_MSISDN by GET but as MISSING_PARAMETER by POST',
    refusal: (b, c) => {
      if (
        c.endpoint === 'invite-member' &&
        c.method === 'POST' &&
        c.params.msisdn === '' &&
        c.status === 'INVALID_MSISDN'
      )
        b.status = 'MISSING_PARAMETER';
    },
  },
  {
    name: 'alias-62-refused',
    clause: 'ENV-3',
    description: 'a 62-form msisdn sent as `number` or `nomor` is refused as invalid (the canonical name takes it)',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member'
        ? Object.fromEntries(
            Object.entries(raw).map(([k, v]) => [
              k,
              names('msisdn').slice(1).includes(k) && typeof v === 'string' && v.startsWith('62') ? `x${v}` : v,
            ]),
          )
        : raw,
  },
] as const satisfies readonly Fault[];

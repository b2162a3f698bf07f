import type { Fault, RewriteContext } from './fault.js';

/**
 * Faults no issue named, found by deriving each parameter's value classes from its role and each record's kinds
 * (src/plan/generators/roles.ts): a gate that lists its boundaries by hand misses them.
 */
export const ROLE_FAULTS = [
  {
    name: 'q-like-pattern',
    clause: 'HIS-4',
    description: 'q is matched as an SQL LIKE pattern: `%` stands for any run of characters and `_` for any one',
  },
  {
    name: 'q-regex',
    clause: 'HIS-4',
    description: 'q is matched as a regular expression: `.` stands for any character',
  },
  {
    name: 'limit-zero-all',
    clause: 'HIS-2',
    description: 'limit=0 is read as no limit: every record is answered',
  },
  {
    name: 'limit-equal-drops-last',
    clause: 'HIS-5',
    description:
      'with a filter, a limit equal to the number of matching records answers one record fewer (an off-by-one)',
  },
  {
    name: 'auth-key-trailing-newline',
    clause: 'AUTH-1',
    description: 'the key is compared after a trailing line break (LF or CRLF) is stripped',
  },
  {
    name: 'auth-key-decoded-twice',
    clause: 'AUTH-1',
    description: 'the key is percent-decoded a second time before it is compared',
  },
  {
    name: 'wrong-key-shows-record',
    clause: 'AUTH-1',
    description:
      'a wrong key on cek-trx-id is refused, but the refusal carries the record of the asked ID when it exists',
  },
  {
    name: 'today-misses-new',
    clause: 'HIS-5',
    description: "a date filter on the provider's today misses the transactions made since the simulator started",
  },
  {
    name: 'lookup-failed-refused',
    clause: 'TRX-1',
    description: 'cek-trx-id answers "not found" for a transaction whose status is not SUCCESS (FAILED, PENDING)',
  },
  {
    name: 'msisdn-plus62-accepted',
    clause: 'INV-3',
    description: 'an msisdn in international form (+62...) is read as 62-form and accepted',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member'
        ? Object.fromEntries(
            Object.entries(raw).map(([k, v]) => [
              k,
              names('msisdn').includes(k) && typeof v === 'string' ? v.replace(/^\+62/, '62') : v,
            ]),
          )
        : raw,
  },
  {
    name: 'astral-name-error',
    clause: 'ENV-1',
    description:
      'an invite whose name holds a character outside the Basic Multilingual Plane (an emoji) is answered with a database error, without the envelope',
    answer: astralNameError,
    refusal: astralNameError,
  },
] as const satisfies readonly Fault[];

/** Fault `astral-name-error`: a 4-byte UTF-8 character in the name breaks the store (MySQL's utf8mb3). */
function astralNameError(b: Record<string, unknown>, c: RewriteContext): void {
  if (
    c.endpoint !== 'invite-member' ||
    typeof c.params.name !== 'string' ||
    !/[\u{10000}-\u{10FFFF}]/u.test(c.params.name)
  )
    return;
  for (const k of Object.keys(b)) delete b[k];
  Object.assign(b, { error: "SQLSTATE[HY000]: General error: 1366 Incorrect string value for column 'name'" });
}

import type { ClauseId, Endpoint, Method, Params } from '../openapi/types.js';
import { swapCase } from '../shared/letter-case.js';

/** What an answer rewrite sees besides the body: the request, its aliases folded into canonical names. */
export interface RewriteContext {
  endpoint: Endpoint;
  method: Method;
  params: Readonly<Record<string, unknown>>;
  /** The answer's status word as the business rules gave it, before the reading reworded it. */
  status: unknown;
}

/** A named way for the simulator to break the contract, or the transport, on purpose. */
export interface Fault {
  name: string;
  /** The clause this fault breaks; absent for transport faults. */
  clause?: ClauseId;
  /**
   * Clauses the same breach breaks too, by their own words (a history filter alias that is ignored breaks ENV-3
   * and the filter's own clause): the mutation self-test expects exactly `clause` and these.
   */
  also?: readonly ClauseId[];
  description: string;
  /**
   * Rewrites the request before the business rules see it (names as sent); `names` gives every name of a
   * canonical parameter of the endpoint, from openapi.yaml's x-aliases.
   */
  request?: (
    raw: Params,
    endpoint: Endpoint,
    names: (canonical: string) => readonly string[],
    method: Method,
  ) => Params;
  /** Rewrites a successful answer's body in place, after the business rules. */
  answer?: (body: Record<string, unknown>, ctx: RewriteContext) => void;
  /** Rewrites a refusal's body in place. */
  refusal?: (body: Record<string, unknown>, ctx: RewriteContext) => void;
}

/** The request without the alias names (not the canonical one) of the given parameters. */
function withoutAliases(raw: Params, names: (canonical: string) => readonly string[], params: string[]): Params {
  const drop = params.flatMap((p) => names(p).slice(1));
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !drop.includes(k)));
}

/**
 * Contract faults, at least one per clause. A fault that only rewrites a request or an answer is a row of
 * this table; the others bend a business rule, each in one named place of state.ts (`fault(name)`).
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

/**
 * Faults that only generated cases catch (the hand-written scenarios pass them): each breaks its clause at an
 * input or a timing the catalogue's fixed values never reach.
 */
export const GENERATED_FAULTS = [
  {
    name: 'msisdn-07-accepted',
    clause: 'INV-3',
    description: 'an msisdn beginning with 07 is taken as a member number (the coverage phase tries every prefix)',
  },
  {
    name: 'auth-key-any-case',
    clause: 'AUTH-1',
    description: 'the key is compared in any letter case (a near miss of the key gets in)',
  },
  {
    name: 'q-whole-values',
    clause: 'HIS-5',
    description: 'q finds a record only by a whole number, ID or product, not by a part of one',
  },
  {
    name: 'inflight-duplicate',
    clause: 'INV-5',
    description: 'a trx_id is seen as used only once its invite is recorded: concurrent duplicates both go through',
  },
] as const satisfies readonly Fault[];

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

/**
 * Breaches at the crossings of a class and a place: a value class the gate once sent in one place only (whitespace
 * around an ID to lookups, not to an invite's own trx_id), a record kind only a lookup shows.
 */
export const CROSSING_FAULTS = [
  {
    name: 'trx-trimmed-after-check',
    clause: 'INV-5',
    // The invite of the ID with a space was carried out as that ID, and no lookup of it finds it (INV-6).
    also: ['INV-6'],
    description:
      'an invite checks its trx_id for reuse as sent but stores it trimmed: a used ID with a space around it creates a second transaction of that ID',
  },
  {
    name: 'kind-array-coerced',
    clause: 'INV-4',
    description:
      'an invite whose kind is a JSON array of one word (["akrab"]) takes that word as the kind: the invite is carried out and charged',
    request: (raw, endpoint, names) =>
      endpoint === 'invite-member'
        ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, names('kind').includes(k) ? firstWord(v) : v]))
        : raw,
  },
  {
    name: 'alias-member-empty',
    clause: 'INV-6',
    description:
      'an invite whose msisdn came under an alias (`number`, `nomor`) is carried out, but recorded with an empty member_number',
  },
  {
    name: 'q-matches-name',
    clause: 'HIS-4',
    description: "history's q also matches the member's name, a field HIS-4 does not list",
  },
  {
    name: 'credit-without-kind',
    clause: 'BAL-2',
    description: 'an invite without kind (optional: the product says it) credits the balance by its price',
  },
  {
    name: 'lookup-refunded-list',
    clause: 'TRX-1',
    description:
      'cek-trx-id answers a REFUNDED transaction (a status history does not show) with data as a list of its one record',
  },
] as const satisfies readonly Fault[];

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

/**
 * Fault `kind-array-coerced`: a JSON array of one word read as that word. The body's array arrives as one value of
 * its parameter (params.ts keeps it whole, inside the list of a name's values).
 */
function firstWord(v: unknown): unknown {
  const one = Array.isArray(v) && v.length === 1 && Array.isArray(v[0]) ? v[0] : v;
  return Array.isArray(one) && one.length === 1 && typeof one[0] === 'string' ? one[0] : v;
}

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

/**
 * A fault that breaks a whole method: ENV-2, and with it every clause judged on that method's answers (which ones
 * depends on the cases a seed generates). The gate must run on and report it, never take it for a wrong key.
 */
export const METHOD_FAULTS = [
  {
    name: 'post-body-ignored',
    clause: 'ENV-2',
    description: 'POST bodies are not read: a POST carries no parameter, not even its key (GET works)',
  },
] as const satisfies readonly Fault[];

/** Transport faults: they break no clause but the wire itself (probe tests, and the gate's money rules). */
export const TRANSPORT_FAULTS = [
  { name: 'latency', description: 'every API answer is delayed by `ms` (default 1500) milliseconds' },
  { name: 'http-500-html', description: 'every API answer is HTTP 500 with an HTML body' },
  { name: 'reset', description: 'the connection is reset before any answer' },
  { name: 'hang', description: 'the request is accepted and never answered' },
  { name: 'invalid-json', description: 'the body is cut-off JSON with content-type application/json' },
  { name: 'oversized-body', description: 'a 4 MiB JSON body' },
  { name: 'slow-drip', description: 'the body is sent one byte every `ms` (default 200) milliseconds' },
  { name: 'reset-first', description: 'the first copy of each distinct request is reset; its repeat is answered' },
  {
    name: 'invite-hang',
    description: 'invite-member is carried out (and charged) but never answered; other endpoints answer',
  },
  {
    name: 'outage',
    description:
      'a maintenance window: the 6th invite carried out is answered 503 with Retry-After: 1, and so is every request for `ms` (default 3000) milliseconds after it',
  },
  {
    name: 'gzip-bomb',
    description: 'every API answer is a gzip body of 10 KiB that decodes to 10 MiB (Content-Encoding: gzip)',
  },
] as const satisfies readonly Fault[];

export type ContractFaultName =
  | (typeof CONTRACT_FAULTS)[number]['name']
  | (typeof GENERATED_FAULTS)[number]['name']
  | (typeof BOUNDARY_FAULTS)[number]['name']
  | (typeof ROLE_FAULTS)[number]['name']
  | (typeof CROSSING_FAULTS)[number]['name']
  | (typeof INDEPENDENT_FAULTS)[number]['name']
  | (typeof METHOD_FAULTS)[number]['name'];
export type TransportFaultName = (typeof TRANSPORT_FAULTS)[number]['name'];
export type FaultName = ContractFaultName | TransportFaultName;

export const FAULTS: readonly Fault[] = [
  ...CONTRACT_FAULTS,
  ...GENERATED_FAULTS,
  ...BOUNDARY_FAULTS,
  ...ROLE_FAULTS,
  ...CROSSING_FAULTS,
  ...INDEPENDENT_FAULTS,
  ...METHOD_FAULTS,
  ...TRANSPORT_FAULTS,
];

export function isFaultName(name: string): name is FaultName {
  return FAULTS.some((f) => f.name === name);
}

export function faultNamed(name: FaultName): Fault {
  return FAULTS.find((f) => f.name === name) as Fault;
}

/** The active fault and its parameter. */
export interface FaultSetting {
  name: FaultName;
  /** Milliseconds for `latency`, `slow-drip` and `outage`. */
  ms?: number;
}

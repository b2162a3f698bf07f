import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../openapi/types.js';

/** What a check reads. Each check names the fields it needs (`Check.needs`). */
export interface Evidence {
  /** The call under test. */
  exchange?: Exchange;
  /** ENV-2: the same parameters by [GET, POST]. ENV-3: [canonical names, alias names]. */
  pair?: readonly [Exchange, Exchange];
  /** HIS-5: a record (at least its trx_id) that the filter of `exchange` must not hide. */
  expectedRecord?: Readonly<Record<string, unknown>>;
  /** INV-5, INV-6, BAL-2: the invite. */
  invite?: Exchange;
  /** INV-5: more invites with the same trx_id, sent after or together with `invite`. */
  repeats?: readonly Exchange[];
  /** BAL-2, INV-5: saldo-user read before the invite. */
  saldoBefore?: Exchange;
  /** INV-5: saldo-user read after the first invite and before its repeats. */
  saldoBetween?: Exchange;
  /** BAL-2, INV-5: saldo-user read after everything. */
  saldoAfter?: Exchange;
  /** AUTH-1: the state the account's own record of the asked trx_id shows (a refusal must not say it). */
  knownStatus?: string;
  /** INV-5 without `saldoBetween` (concurrent repeats): the price of one invite, when the caller knows it. */
  unitPrice?: number;
  /**
   * INV-5: records not of this run showed up while the balance was compared (another client of the account): a
   * drop of the balance then cannot be put down to the repeats, and only history judges.
   */
  othersActive?: boolean;
  /**
   * HIS-4: q is a value the run itself wrote outside the clause's fields (a member's name in another script): no
   * product holds it, so HIS-4 judges it as it judges a phone number.
   */
  foreignQuery?: true;
  /** INV-6: cek-trx-id for the invite's trx_id. */
  lookup?: Exchange;
  /** INV-5, INV-6: history-transaksi with q=<trx_id>. */
  history?: Exchange;
}

export type EvidenceField = keyof Evidence;

export interface CheckContext {
  api: ApiModel;
}

/**
 * One contract clause as a function. `scope` says what the clause can be judged from:
 * - `response`: one exchange of a request that may succeed (gate, probe, `h2h validate`);
 * - `refusal`: one exchange of a request known to be bad (wrong key, unknown id, bad msisdn, ...);
 * - `multi`: several requests.
 * `needs` names the evidence it reads; the one runner (judge.ts) refuses to call it without (a caller's bug,
 * not a finding), so `run` gets every field it names.
 */
export interface Check<K extends EvidenceField = EvidenceField> {
  id: ClauseId;
  title: string;
  scope: 'response' | 'refusal' | 'multi';
  needs: readonly K[];
  /**
   * For a `response` check: whether one answer gives it anything to judge (HIS-3 needs a date filter in the
   * request, HIS-4 a q). An answer it does not apply to is not counted as a pass of the clause.
   * @defaultValue always
   */
  applies?(exchange: Exchange, ctx: CheckContext): boolean;
  run(evidence: Evidence & Required<Pick<Evidence, K>>, ctx: CheckContext): Finding[];
}

/** A check, its `needs` typed from the list it gives. */
export function defineCheck<K extends EvidenceField>(check: Check<K>): Check<K> {
  return check;
}

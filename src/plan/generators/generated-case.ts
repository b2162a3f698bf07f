import type { ClauseId, Endpoint, Method, Params } from '../../openapi/types.js';
import type { InviteIntent } from '../../target/invite-ledger.js';

// The generated case as data, apart from the generators (cases.ts): the scenario's context names it, and the
// generators take the scenario's context, so the type lives where neither imports the other.

/** Which generator made a case. */
export type Phase = 'coverage' | 'pairs' | 'near-miss' | 'random' | 'history' | 'in-flight';

/**
 * One generated request and what the clauses say of its answer. Kept as data, so that a failing one can be
 * saved (reports/failures/) and sent again (`h2h replay`).
 */
export interface GeneratedCase {
  phase: Phase;
  endpoint: Endpoint;
  method: Method;
  /** The request as sent. */
  params: Params;
  /** What it is: `msisdn via nomor: prefix 07`. */
  label: string;
  /** A clause that says this request must be refused. */
  refuse?: ClauseId;
  /** The key it carries is not the caller's: AUTH-1 judges the answer. */
  wrongKey?: boolean;
  /** For an invite: why it goes out, and so how it counts against the cap. */
  intent?: InviteIntent;
  /** HIS-5: records of the target that the answer, when complete, must hold. */
  expectedRecords?: Readonly<Record<string, string>>[];
  /** The transaction ID it looks up names no record: TRX-2 judges the answer. */
  unknownId?: true;
  /** A coverage case: the parameter, the name it went under and its value class (what ENV-2 and ENV-3 pair on). */
  coverage?: { param: string; sentAs: string; valueClass: string };
  /** A case of the covering array (pairs.ts): the level of each factor it sets. */
  row?: Readonly<Record<string, string>>;
}

/**
 * The cases in batches of `size`, in order; an invite whose trx_id one of its batch already carries starts the next:
 * a trx_id is never in flight twice (were the first lost, the second would be its repeat).
 */
export function batches(cases: readonly GeneratedCase[], size: number): GeneratedCase[][] {
  const out: GeneratedCase[][] = [];
  let batch: GeneratedCase[] = [];
  const trx = (c: GeneratedCase): unknown =>
    c.endpoint === 'invite-member' ? (c.params.trx_id ?? c.params.trxid) : undefined;
  for (const c of cases) {
    const taken = trx(c) !== undefined && batch.some((b) => trx(b) === trx(c));
    if (batch.length === size || taken) {
      out.push(batch);
      batch = [];
    }
    batch.push(c);
  }
  if (batch.length) out.push(batch);
  return out;
}

import type { ClauseId, Drift } from '../openapi/types.js';
import type { LearnedPoint, ObservedConflict, ReadingChange, Vocabulary } from '../reading/index.js';
import type { ClauseOutcome, RunOutcome } from './outcome-rules.js';

/**
 * The shape of contract-summary.json: what a run concluded, clause by clause, with the provider's reading and what
 * changed since a baseline. One home for the types that summary.ts writes and baseline.ts reads back, so neither
 * imports the other for a type; the reading's own types (a learned point, a change of it) are src/reading/types.ts.
 */

export interface ClauseFailure {
  test: string;
  endpoint: string;
  method?: string;
  aliases?: string[];
  path?: string;
  expected?: string;
  actual?: string;
  error?: string;
}

export interface ClauseSummary {
  id: ClauseId;
  status: ClauseOutcome;
  /** Scenarios that judged this clause, or meant to. */
  tests: number;
  /** Scenarios that judged it and found it kept. */
  passed: number;
  /** Scenarios that found it broken (wherever: a breach counts for its own clause). */
  failed: number;
  /** Scenarios that meant to judge it and could not. */
  inconclusive: number;
  /** Scenarios the user's choice kept from judging it. */
  skipped: number;
  failures: ClauseFailure[];
  warnings: (ClauseFailure & { reason: string })[];
  /** Why it could not be judged where the run meant to (inconclusive), and what would let it: each once. */
  causes: string[];
  /** Why the user's choice kept it from being judged (read-only, --grep, the cap, a deviation): each once. */
  reasons: string[];
}

/** What changed since a baseline run: clauses, drift, and the provider's reading. */
export interface BaselineChanges {
  /** The baseline file, as given. */
  file: string;
  newlyViolated: string[];
  newlyHolding: string[];
  driftNew: string[];
  driftGone: string[];
  /** Every learned value that changed, graded (`max-limit 50 -> 25`): facts about the provider, never violations. */
  reading: ReadingChange[];
  /** Points learned in one run and not in the other: never a change. */
  notSeen: string[];
}

export interface ContractSummary {
  result: RunOutcome;
  target: string;
  allowWrites: boolean;
  strict: boolean;
  /** The seed of the generated cases (`--seed` repeats them). */
  seed?: number;
  /** Failing generated cases saved for `h2h replay`. */
  failureFiles: number;
  totals: { scenarios: number; passed: number; failed: number; skipped: number; inconclusive: number; flaky: number };
  clauses: ClauseSummary[];
  drift: Drift[];
  flaky: { test: string; note: string }[];
  /** Things about the run itself a reader must know (it hardly reached the business logic, ...). */
  warnings: string[];
  /** Two names of one parameter with different values: what the target did (observations, never violations). */
  conflicts: ObservedConflict[];
  /** The provider's reading: what it does on each open point, learned from this run (src/reading/). */
  reading: LearnedPoint[];
  /** The provider's own words, codes, fields, forms and products, learned from this run (src/reading/). */
  vocabulary: Vocabulary;
  /** What changed since a baseline run (`--baseline`), when one was given. */
  sinceBaseline?: BaselineChanges;
  /** Rate-limit answers waited out (never a violation). */
  rateLimits: { waits: number; seconds: number; scenarios: { test: string; waits: number; seconds: number }[] };
  /** How long what invites wrote took to show in cek-trx-id and history (INV-5, INV-6), within --settle. */
  settle: { scenarios: number; maxMs: number; windowMs: number };
  /** Invites sent and charged (or maybe charged), against the cap; what the cap kept from running. */
  spend: { sent: number; charged: number; cap: number; skipped: string[] };
}

import type { ClauseId, Drift } from '../openapi/types.js';

/**
 * The rules that turn what the run saw into outcomes, in one place: a scenario's verdict (verdict.ts) and the
 * run's summary (summary.ts) both apply them. Known deviations turn findings into warnings; drift fails only a
 * strict run; one rise of the balance (BAL-2) among reads that did not rise is inconclusive, not a breach.
 */

/**
 * How a clause ended: `held`, judged and kept; `violated`, a finding of it (not a known deviation);
 * `inconclusive`, the run meant to judge it and could not (each cause in `reasons`, with what would let it be
 * judged); `not-judged`, the user's choice kept it out (read-only, --grep, the invite cap, a known deviation).
 */
export type ClauseOutcome = 'held' | 'violated' | 'inconclusive' | 'not-judged';
/** The outcome of a whole run: the worst of its clauses' (not-judged counts as held). */
export type RunOutcome = 'held' | 'violated' | 'inconclusive';

/** A clause the config marks as a known deviation, and why. */
export interface KnownDeviation {
  clause: string;
  reason: string;
}

/** The known deviation of a clause, if the config marks it as one. */
export function deviationOf(
  deviations: readonly KnownDeviation[] | undefined,
  clause: string,
): KnownDeviation | undefined {
  return deviations?.find((d) => d.clause === clause);
}

/** Findings split by the known deviations: those that break the contract, and those only warned of (with why). */
export function applyDeviations<F extends { clause: string }>(
  findings: readonly F[],
  deviations: readonly KnownDeviation[],
): { broken: F[]; warned: (F & { reason: string })[] } {
  const broken: F[] = [];
  const warned: (F & { reason: string })[] = [];
  for (const f of findings) {
    const dev = deviationOf(deviations, f.clause);
    if (dev) warned.push({ ...f, reason: dev.reason });
    else broken.push(f);
  }
  return { broken, warned };
}

/** One drift's identity: the same field, status or code seen twice (on one endpoint) is one drift. */
export const driftIdentity = (d: Drift): string => `${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`;

/** Drift fails only a strict run: the lines it adds to a scenario's failures then (none otherwise). */
export function strictDriftLines(drift: readonly Drift[], strict: boolean): string[] {
  if (!strict) return [];
  return drift.map((d) => `drift (strict) ${d.endpoint} ${d.kind} ${d.path}${d.value ? ` = ${d.value}` : ''}`);
}

/** What the run's scenarios did with one clause: what its outcome is decided from. */
export interface ClauseTally {
  id: ClauseId;
  tests: number;
  passed: number;
  failed: number;
  inconclusive: number;
  failures: readonly { test: string }[];
  warnings: readonly { reason: string }[];
}

/** A clause's outcome, with the causes (inconclusive) or reasons (not judged) it adds to the clause's own. */
export interface ClauseDecision {
  status: ClauseOutcome;
  causes: string[];
  reasons: string[];
}

/**
 * A balance may move between two reads for reasons of its own (a top-up, a refund): one rise around one invite,
 * beside invites that did not raise it, does not tell a breach from that. BAL-2 is violated when it rises again.
 */
export function oneBalanceRise(c: ClauseTally): ClauseDecision | undefined {
  if (c.id !== 'BAL-2' || c.failed !== 1 || c.passed === 0) return undefined;
  return {
    status: 'inconclusive',
    causes: [
      `the balance rose around one invite only (${c.failures[0]?.test ?? ''}), not around ${c.passed} other(s): a top-up or refund between the two reads can explain one rise; run again to see whether it repeats`,
    ],
    reasons: [],
  };
}

/**
 * The outcome of one clause over the run: violated by a finding, not judged for a known deviation, inconclusive
 * where a scenario meant to judge it and could not (or ran and its answers gave it nothing to judge: `unjudged`),
 * held where one judged it, else not judged.
 */
export function clauseOutcome(
  c: ClauseTally,
  unjudged: readonly string[] | undefined,
  deviation: KnownDeviation | undefined,
): ClauseDecision {
  const decided = (status: ClauseOutcome, causes: string[] = [], reasons: string[] = []): ClauseDecision => ({
    status,
    causes,
    reasons,
  });
  const rise = oneBalanceRise(c);
  if (rise) return rise;
  if (c.failed > 0) return decided('violated');
  if (c.warnings.length > 0)
    return decided('not-judged', [], [`a known deviation: ${c.warnings[0]?.reason ?? deviation?.reason ?? ''}`]);
  if (c.inconclusive > 0) return decided('inconclusive');
  if (c.passed > 0) return decided('held');
  if (unjudged) return decided('inconclusive', [...unjudged]);
  return decided('not-judged', [], c.tests === 0 ? ['no scenario of the run judges it (--grep)'] : []);
}

/** The run's outcome: violated by a clause (or by drift, when strict), else inconclusive if anything was, else held. */
export function runOutcome(
  clauses: readonly ClauseOutcome[],
  run: { drift: number; strict: boolean; inconclusiveScenarios: number },
): RunOutcome {
  if (clauses.includes('violated') || (run.strict && run.drift > 0)) return 'violated';
  if (clauses.includes('inconclusive') || run.inconclusiveScenarios > 0) return 'inconclusive';
  return 'held';
}

import { findingDetail, findingPlace } from '../checks/util.js';
import type { ClauseId, Drift, Finding } from '../openapi/types.js';
import type { NotRun, PlannedScenario, StopKind } from '../plan/plan.js';
import { redact } from '../redact.js';

export type { Observation, ReadingFact, ShownExchange } from '../plan/observations.js';

import type { Observation, ShownExchange } from '../plan/observations.js';

/**
 * How a scenario ended: `passed`, it judged its clauses and they hold; `failed`, a clause broke (or drift under
 * --strict); `skipped`, the user's choice kept it from running (read-only, the invite cap); `inconclusive`, it
 * meant to judge and could not (no history, a refusal the account's state explains, no answer, a rate limit
 * past --max-wait), said in `skipReason` with what would let it be judged.
 */
export type ScenarioStatus = 'passed' | 'failed' | 'skipped' | 'inconclusive';

/** What one scenario found, redacted: the reporter builds the summary and the JUnit file from these. */
export interface ScenarioResult {
  title: string;
  area: string;
  status: ScenarioStatus;
  /** Why it was skipped, or why it could not judge (inconclusive), as a kind (plan.ts): read by the summary. */
  skipKind?: StopKind;
  /** Why it was skipped, or why it could not judge (inconclusive), and what would let it: read by people. */
  skipReason?: string;
  /** The clauses the scenario is about. */
  clauses: ClauseId[];
  /** Every clause it judged: its own, and those that any answer it got can break (ENV-1, ENV-4, HIS-1, ...). */
  judged: ClauseId[];
  endpoint: string;
  methods: string[];
  aliases: string[];
  form: 'write' | 'safe';
  findings: Finding[];
  /** Findings of clauses the config marks as known deviations. */
  warned: (Finding & { reason: string })[];
  drift: Drift[];
  /** One line per broken clause and place: how many records or fields broke it, and the first three. */
  lines: string[];
  flaky: string[];
  /** Rate-limit answers waited out: how many, and how long in all. */
  waits: { count: number; ms: number };
  /** How long it took for what an invite wrote to show (the longest settle of the scenario). */
  settleMs?: number;
  invites: { sent: number; charged: number };
  /** Set when no answer came. */
  transport?: string;
  exchanges: ShownExchange[];
  /** Wall time of the scenario. */
  durationMs?: number;
  /** Failing generated cases saved for `h2h replay` (paths under reports/failures/). */
  failures: string[];
  /** Its own clauses the run's settings kept it from judging (guarded invites, read-only), and why. */
  notJudged?: { clauses: ClauseId[]; reason: string };
  /** What the target did on open points (two names at once, ...). */
  observations: Observation[];
  /** Answers received, and the refusals among them by kind (`HTTP 403 FORBIDDEN`). */
  answers: { total: number; refusals: Record<string, number> };
}

/**
 * One line per clause and place: a clause broken by 37 records reads as one line with the count and the
 * first three, not 37 lines.
 */
export function findingLines(findings: readonly Finding[]): string[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.clause} [${findingPlace(f)}]`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups].map(([key, list]) => {
    const one = findingDetail;
    if (list.length === 1) return redact(`${key} ${one(list[0] as Finding)}`);
    return redact(
      `${key} ${list.length} places broke it; first ${Math.min(3, list.length)}: ${list.slice(0, 3).map(one).join('; ')}`,
    );
  });
}

/** One finding's identity: the same break seen twice (by its own judgement and by judging the answer) is one. */
export const findingKey = (f: Finding): string =>
  `${f.clause}|${f.endpoint}|${f.method}|${(f.aliases ?? []).join(',')}|${f.path}|${f.expected}|${f.actual}`;

/** The record of a scenario that did not run, and why: the user's choice (skipped), or it could not (inconclusive). */
export function skippedResult(entry: PlannedScenario, stop: NotRun): ScenarioResult {
  return newResult(entry, stop);
}

/** A planned scenario whose test ended before it reported: what the reporter holds for it until it does. */
export const DID_NOT_REPORT: NotRun = { status: 'inconclusive', kind: 'no-report', reason: 'did not report' };

/** The record a scenario's verdict starts from: passed, nothing found yet (verdict.ts). */
export function emptyResult(entry: PlannedScenario): ScenarioResult {
  return newResult(entry);
}

function newResult(entry: PlannedScenario, stop?: NotRun): ScenarioResult {
  const s = entry.scenario;
  return {
    title: s.title,
    area: s.area,
    status: stop?.status ?? 'passed',
    ...(stop ? { skipKind: stop.kind, skipReason: stop.reason } : {}),
    clauses: s.clauses,
    judged: [],
    endpoint: s.endpoint,
    methods: s.methods,
    aliases: s.aliases,
    form: entry.form,
    findings: [],
    warned: [],
    drift: [],
    lines: [],
    flaky: [],
    waits: { count: 0, ms: 0 },
    invites: { sent: 0, charged: 0 },
    exchanges: [],
    failures: [],
    observations: [],
    answers: { total: 0, refusals: {} },
  };
}

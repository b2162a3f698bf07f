import { findingDetail, findingPlace } from '../checks/util.js';
import { CLAUSE_IDS, type ClauseId, type Drift, type Finding } from '../openapi/types.js';
import { aboutKnob, learnReading, learnVocabulary, type ObservedConflict } from '../reading/index.js';
import { EXIT } from '../shared/exit.js';
import { baselineLines } from './baseline.js';
import {
  type ClauseOutcome,
  clauseOutcome,
  deviationOf,
  driftIdentity,
  type KnownDeviation,
  type RunOutcome,
  runOutcome,
} from './outcome-rules.js';
import type { Observation, ReadingFact, ScenarioResult } from './scenario-result.js';
import type { ClauseFailure, ClauseSummary, ContractSummary } from './summary-schema.js';

export type { ObservedConflict } from '../reading/index.js';
export type { ClauseOutcome, RunOutcome } from './outcome-rules.js';
export type { ClauseFailure, ClauseSummary, ContractSummary } from './summary-schema.js';

const MAX_LISTED = 20;
/** A run whose answers are this share of one refusal, or more, hardly reached the business logic. */
const ONE_REFUSAL_SHARE = 0.8;

/** The warning for a run whose answers were mostly one refusal, or undefined. */
function refusalWarning(records: readonly ScenarioResult[]): string | undefined {
  let total = 0;
  const kinds = new Map<string, number>();
  for (const r of records) {
    total += r.answers?.total ?? 0;
    for (const [k, n] of Object.entries(r.answers?.refusals ?? {})) kinds.set(k, (kinds.get(k) ?? 0) + n);
  }
  const [kind, n] = [...kinds].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (total < 20 || n / total < ONE_REFUSAL_SHARE) return undefined;
  return `${Math.round((100 * n) / total)}% of the ${total} answers were one refusal (${kind}): the run hardly reached the business logic; check the key, the base URL, the product and the numbers`;
}

/** What a run was: its settings as the summary reports them. */
export interface SummarySettings {
  target: string;
  allowWrites: boolean;
  strict: boolean;
  cap: number;
  settleMs: number;
  seed?: number;
  deviations?: readonly KnownDeviation[];
}

/** A clause no scenario has judged yet. */
function emptyClause(id: ClauseId): ClauseSummary {
  return {
    id,
    status: 'not-judged',
    tests: 0,
    passed: 0,
    failed: 0,
    inconclusive: 0,
    skipped: 0,
    failures: [],
    warnings: [],
    causes: [],
    reasons: [],
  };
}

/** Adds a reason to a list once, up to MAX_LISTED. */
function noteOnce(list: string[], why: string): void {
  if (!list.includes(why) && list.length < MAX_LISTED) list.push(why);
}

/** Room left in a list of at most MAX_LISTED. */
const roomIn = (list: readonly unknown[]): number => Math.max(0, MAX_LISTED - list.length);

function failureOf(test: string, f: Finding): ClauseFailure {
  return {
    test,
    endpoint: f.endpoint,
    ...(f.method ? { method: f.method } : {}),
    ...(f.aliases ? { aliases: f.aliases } : {}),
    path: f.path,
    expected: f.expected,
    actual: f.actual,
  };
}

function warningOf(test: string, w: Finding & { reason: string }): ClauseFailure & { reason: string } {
  return {
    test,
    endpoint: w.endpoint,
    ...(w.method ? { method: w.method } : {}),
    path: w.path,
    expected: w.expected,
    actual: w.actual,
    reason: w.reason,
  };
}

/** Every clause a scenario is about, judged, or found broken or warned: each finding counts for its own clause. */
function clausesOf(r: ScenarioResult): Set<ClauseId> {
  return new Set<ClauseId>([
    ...r.clauses,
    ...r.judged,
    ...r.findings.map((f) => f.clause),
    ...r.warned.map((f) => f.clause),
  ]);
}

/** The run's scenario records added up, one at a time: per clause, per drift, per conflict, and the run's totals. */
class RunTally {
  readonly clauses = new Map<ClauseId, ClauseSummary>(CLAUSE_IDS.map((id) => [id, emptyClause(id)]));
  /** Scenarios that ran, whose own clause their answers gave nothing to judge (a page that could not be complete). */
  readonly unjudged = new Map<ClauseId, string[]>();
  readonly drift = new Map<string, Drift>();
  readonly totals = { scenarios: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0, flaky: 0 };
  readonly flaky: { test: string; note: string }[] = [];
  readonly waited: ContractSummary['rateLimits']['scenarios'] = [];
  readonly spend: ContractSummary['spend'];
  readonly conflicts = new Map<string, ObservedConflict>();
  readonly facts: ReadingFact[] = [];
  settled = 0;
  settleMax = 0;

  constructor(cap: number) {
    this.spend = { sent: 0, charged: 0, cap, skipped: [] };
  }

  add(r: ScenarioResult): void {
    this.totals.scenarios++;
    this.totals[r.status]++;
    for (const note of r.flaky) this.flaky.push({ test: r.title, note });
    this.totals.flaky += r.flaky.length;
    for (const d of r.drift) this.drift.set(driftIdentity(d), d);
    if (r.waits.count) this.waited.push({ test: r.title, waits: r.waits.count, seconds: r.waits.ms / 1000 });
    if (r.settleMs !== undefined) {
      this.settled++;
      this.settleMax = Math.max(this.settleMax, r.settleMs);
    }
    this.spend.sent += r.invites.sent;
    this.spend.charged += r.invites.charged;
    if (r.status === 'skipped' && r.skipKind === 'invite-cap') this.spend.skipped.push(`${r.title}: ${r.skipReason}`);
    for (const o of r.observations ?? []) this.observe(o);
    for (const id of clausesOf(r)) {
      const c = this.clauses.get(id);
      if (c) this.count(c, r);
    }
  }

  /** A reading fact as it is; a conflict of two names by endpoint and pair, and which name won as a fact too. */
  private observe(o: Observation): void {
    if (o.point === 'reading') {
      this.facts.push(o);
      return;
    }
    // Which name won is the reading's `conflict` too (the key's pair included).
    const word = { refused: 'refuse', canonical: 'canonical', alias: 'alias' }[o.value];
    if (word)
      this.facts.push({
        point: 'reading',
        knob: 'conflict',
        value: word,
        ...(o.evidence ? { evidence: o.evidence } : {}),
      });
    const key = `${o.endpoint} ${o.subject}`;
    const seen = this.conflicts.get(key) ?? { endpoint: o.endpoint, subject: o.subject, byMethod: {} };
    const before = seen.byMethod[o.method];
    seen.byMethod[o.method] = before && before !== o.value ? `${before}, ${o.value}` : o.value;
    this.conflicts.set(key, seen);
  }

  /** What one scenario did with one clause: broke it, judged it kept, was kept from it, or could not judge it. */
  private count(c: ClauseSummary, r: ScenarioResult): void {
    const id = c.id;
    c.tests++;
    const mine = r.findings.filter((f) => f.clause === id);
    if (mine.length) {
      c.failed++;
      for (const f of mine.slice(0, roomIn(c.failures))) c.failures.push(failureOf(r.title, f));
    } else if (r.judged.includes(id)) {
      c.passed++;
    } else if (r.notJudged?.clauses.includes(id)) {
      c.skipped++;
      noteOnce(c.reasons, r.notJudged.reason);
    } else if (r.clauses.includes(id) && r.status === 'inconclusive') {
      c.inconclusive++;
      noteOnce(c.causes, r.skipReason ?? 'could not judge');
    } else if (r.clauses.includes(id) && r.status === 'skipped') {
      c.skipped++;
      noteOnce(c.reasons, r.skipReason ?? 'not run');
    } else if (r.clauses.includes(id)) {
      this.unjudged.set(id, [...(this.unjudged.get(id) ?? []), `${r.title}: its answers gave it nothing to judge`]);
    }
    for (const w of r.warned.filter((f) => f.clause === id).slice(0, roomIn(c.warnings)))
      c.warnings.push(warningOf(r.title, w));
  }

  /** Each clause's outcome (outcome-rules.ts), with the causes and reasons it adds. */
  decide(deviations: readonly KnownDeviation[] | undefined): void {
    for (const c of this.clauses.values()) {
      const d = clauseOutcome(c, this.unjudged.get(c.id), deviationOf(deviations, c.id));
      c.status = d.status;
      for (const why of d.causes) noteOnce(c.causes, why);
      for (const why of d.reasons) noteOnce(c.reasons, why);
    }
  }
}

/** The summary of a run's scenario records. */
export function summarize(records: readonly ScenarioResult[], run: SummarySettings): ContractSummary {
  const t = new RunTally(run.cap);
  for (const r of records) t.add(r);
  t.decide(run.deviations);
  const driftList = [...t.drift.values()];
  const all = [...t.clauses.values()];
  const warning = refusalWarning(records);
  const conflicts = [...t.conflicts.values()];
  return {
    result: runOutcome(
      all.map((c) => c.status),
      { drift: driftList.length, strict: run.strict, inconclusiveScenarios: t.totals.inconclusive },
    ),
    target: run.target,
    allowWrites: run.allowWrites,
    strict: run.strict,
    ...(run.seed !== undefined ? { seed: run.seed } : {}),
    failureFiles: records.reduce((a, r) => a + (r.failures?.length ?? 0), 0),
    totals: t.totals,
    clauses: all,
    drift: driftList,
    flaky: t.flaky,
    warnings: warning ? [warning] : [],
    conflicts,
    reading: learnReading(t.facts, run),
    vocabulary: learnVocabulary(t.facts, conflicts),
    rateLimits: {
      waits: t.waited.reduce((a, w) => a + w.waits, 0),
      seconds: Math.round(t.waited.reduce((a, w) => a + w.seconds, 0) * 10) / 10,
      scenarios: t.waited,
    },
    settle: { scenarios: t.settled, maxMs: t.settleMax, windowMs: run.settleMs },
    spend: t.spend,
  };
}

/** The exit code of a run's outcome: 0 held, 1 violated, 4 inconclusive (0 with --allow-inconclusive). */
export function exitCodeOf(result: RunOutcome, allowInconclusive: boolean): 0 | 1 | 4 {
  if (result === 'violated') return EXIT.VIOLATED;
  if (result === 'inconclusive') return allowInconclusive ? EXIT.OK : EXIT.INCONCLUSIVE;
  return EXIT.OK;
}

const ICON: Record<ClauseOutcome, string> = {
  held: 'held',
  violated: '**VIOLATED**',
  inconclusive: '*inconclusive*',
  'not-judged': 'not judged',
};

const HEADLINE: Record<RunOutcome, string> = {
  held: 'holds',
  violated: '**violated**',
  inconclusive: '*inconclusive* (nothing violated, but not everything it meant to judge could be judged)',
};

/** The headline: the outcome, the run's settings and its scenarios, and its warnings. */
function headlineLines(s: ContractSummary): string[] {
  const lines = [
    `# H2H contract: ${HEADLINE[s.result]}`,
    '',
    `Target ${s.target}; writes ${s.allowWrites ? 'allowed' : 'not allowed'}; ${s.strict ? 'strict (drift fails)' : 'drift reported only'}. ` +
      `Scenarios: ${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.inconclusive} inconclusive, ${s.totals.skipped} not run by choice, ${s.totals.flaky} flaky.` +
      (s.seed !== undefined ? ` Seed ${s.seed} (\`--seed ${s.seed}\` generates the same cases).` : '') +
      (s.failureFiles
        ? ` ${s.failureFiles} failing generated case(s) saved in reports/failures/ (\`h2h replay\`).`
        : ''),
  ];
  for (const w of s.warnings) lines.push('', `**Warning:** ${w}`);
  return lines;
}

/** One row of the clause table: its outcome, its counts, and where it broke or why it was not judged. */
function clauseRow(c: ClauseSummary): string {
  const where = [
    ...c.failures
      .slice(0, 3)
      .map((f) =>
        f.error ? `${f.endpoint}: ${f.error}` : `${findingPlace(f)} ${findingDetail({ ...f, path: `\`${f.path}\`` })}`,
      ),
    ...c.warnings
      .slice(0, 2)
      .map((w) => `known deviation (${w.reason}): ${w.endpoint} ${w.method ?? ''} \`${w.path}\``),
    ...(c.status === 'inconclusive' ? c.causes.slice(0, 3) : c.status === 'not-judged' ? c.reasons.slice(0, 2) : []),
  ]
    .join('<br>')
    .replace(/\|/g, '\\|');
  return `| ${c.id} | ${ICON[c.status]} | ${c.passed}/${c.failed}/${c.inconclusive}/${c.skipped} | ${where} |`;
}

/** The invites spent against the cap, what the cap kept from running, and how long writes took to show. */
function spendLines(s: ContractSummary): string[] {
  const lines = [
    '',
    `Invites: ${s.spend.sent} sent, ${s.spend.charged} charged or maybe charged, cap ${s.spend.cap}.` +
      (s.spend.skipped.length ? ` Kept from running by the cap: ${s.spend.skipped.length}.` : ''),
  ];
  for (const k of s.spend.skipped.slice(0, 10)) lines.push(`- ${k}`);
  if (s.settle.scenarios)
    lines.push(
      '',
      `Read-after-write: ${s.settle.scenarios} scenario(s) read what an invite wrote; the slowest showed after ${s.settle.maxMs} ms (window ${s.settle.windowMs} ms).`,
    );
  return lines;
}

/** Two names of one parameter at once: what the target did, by endpoint and method. */
function conflictLines(s: ContractSummary): string[] {
  if (!s.conflicts.length) return [];
  return [
    '',
    `## Two names of one parameter at once (${s.conflicts.length}): observed, never a violation`,
    '',
    'Each request sent two names of one parameter with different values; the target refused it, used the canonical',
    "name's value, or the alias's (the answer was judged as the answer to the value it used).",
    '',
    ...s.conflicts.map(
      (o) =>
        `- ${o.endpoint} ${o.subject}: ${Object.entries(o.byMethod)
          .map(([m, v]) => `${v} (${m})`)
          .join(', ')}`,
    ),
  ];
}

/** The provider's reading: what it does on each open point, as a table. */
function readingLines(s: ContractSummary): string[] {
  if (!s.reading.length) return [];
  const cell = (t: string): string => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    '',
    '## Provider reading: what this provider does where its description is silent',
    '',
    'Facts, never violations. `reports/provider-reading.yaml` holds them in the form `h2h mock --legal-profile` reads.',
    '',
    '| Open point | What the description says | What this provider does | Evidence |',
    '|---|---|---|---|',
  ];
  for (const p of s.reading) {
    const does = p.value === undefined ? `not learned: ${p.note ?? ''}` : `${p.value}${p.note ? ` (${p.note})` : ''}`;
    const ev = p.evidence ? `${p.evidence.method} ${p.evidence.url} → HTTP ${p.evidence.httpStatus}` : '';
    lines.push(`| ${p.knob}: ${cell(aboutKnob(p.knob))} | ${cell(p.described)} | ${cell(does)} | ${cell(ev)} |`);
  }
  return lines;
}

/** What the run noted beside the contract: rate limits waited out, drift, flaky transport. */
function noteLines(s: ContractSummary): string[] {
  const lines: string[] = [];
  if (s.rateLimits.waits) {
    lines.push('', `## Rate limits (${s.rateLimits.waits} waits, ${s.rateLimits.seconds} s): never a violation`, '');
    for (const w of s.rateLimits.scenarios.slice(0, 20)) lines.push(`- ${w.test}: ${w.waits} wait(s), ${w.seconds} s`);
  }
  lines.push('', `## Drift (${s.drift.length})`, '');
  if (s.drift.length === 0)
    lines.push('No field, status value or refusal code outside openapi.yaml and the known lists.');
  for (const d of s.drift)
    lines.push(`- ${d.endpoint}: ${d.kind} \`${d.path}\`${d.value !== undefined ? ` = \`${d.value}\`` : ''}`);
  if (s.flaky.length) {
    lines.push(
      '',
      `## Flaky (${s.flaky.length}): transport errors that passed on their one retry, scenarios run again after a lost invite`,
      '',
    );
    for (const f of s.flaky) lines.push(`- ${f.test}: ${f.note}`);
  }
  return lines;
}

/** The summary as Markdown, fit for a CI job summary. */
export function summaryMarkdown(s: ContractSummary): string {
  const lines = [
    ...headlineLines(s),
    '',
    '| Clause | Outcome | Scenarios (held/violated/inconclusive/not run) | Where it broke, or why it was not judged |',
    '|---|---|---|---|',
    ...s.clauses.map(clauseRow),
    ...spendLines(s),
    ...conflictLines(s),
    ...(s.sinceBaseline ? ['', ...baselineLines(s.sinceBaseline)] : []),
    ...readingLines(s),
    ...noteLines(s),
  ];
  return `${lines.join('\n')}\n`;
}

import { findingDetail, findingPlace } from '../checks/util.js';
import type { Vocabulary } from '../openapi/reading-file.js';
import { CLAUSE_IDS, type ClauseId, type Drift } from '../openapi/types.js';
import { EXIT } from '../shared/exit.js';
import { type BaselineChanges, baselineLines } from './baseline.js';
import { learnVocabulary } from './learn-vocabulary.js';
import { aboutKnob, type LearnedPoint, learnReading } from './reading.js';
import type { ReadingFact, ScenarioResult } from './scenario-result.js';

/**
 * How a clause ended: `held`, judged and kept; `violated`, a finding of it (not a known deviation);
 * `inconclusive`, the run meant to judge it and could not (each cause in `reasons`, with what would let it be
 * judged); `not-judged`, the user's choice kept it out (read-only, --grep, the invite cap, a known deviation).
 */
export type ClauseOutcome = 'held' | 'violated' | 'inconclusive' | 'not-judged';
/** The outcome of a whole run: the worst of its clauses' (not-judged counts as held). */
export type RunOutcome = 'held' | 'violated' | 'inconclusive';

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

/** What the target did when two names of one parameter disagreed, per endpoint and pair of names. */
export interface ObservedConflict {
  endpoint: string;
  subject: string;
  /** By method: `refused`, `canonical`, `alias`, `unclear`. */
  byMethod: Record<string, string>;
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
  /** The provider's reading: what it does on each open point, learned from this run (reading.ts). */
  reading: LearnedPoint[];
  /** The provider's own words, codes, fields, forms and products, learned from this run (learn-vocabulary.ts). */
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

/** The summary of a run's scenario records. */
export function summarize(
  records: readonly ScenarioResult[],
  run: {
    target: string;
    allowWrites: boolean;
    strict: boolean;
    cap: number;
    settleMs: number;
    seed?: number;
    deviations?: readonly { clause: string; reason: string }[];
  },
): ContractSummary {
  const clauses = new Map<ClauseId, ClauseSummary>(
    CLAUSE_IDS.map((id) => [
      id,
      {
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
      },
    ]),
  );
  // Scenarios that ran, whose own clause their answers gave nothing to judge (a page that could not be complete).
  const unjudged = new Map<ClauseId, string[]>();
  const drift = new Map<string, Drift>();
  const totals = { scenarios: 0, passed: 0, failed: 0, skipped: 0, inconclusive: 0, flaky: 0 };
  const flaky: { test: string; note: string }[] = [];
  const waited: ContractSummary['rateLimits']['scenarios'] = [];
  const spend = { sent: 0, charged: 0, cap: run.cap, skipped: [] as string[] };
  const conflicts = new Map<string, ObservedConflict>();
  const facts: ReadingFact[] = [];
  let settled = 0;
  let settleMax = 0;
  const note = (list: string[], why: string): void => {
    if (!list.includes(why) && list.length < MAX_LISTED) list.push(why);
  };
  const reason = (c: ClauseSummary, why: string): void => note(c.reasons, why);
  const cause = (c: ClauseSummary, why: string): void => note(c.causes, why);
  for (const r of records) {
    totals.scenarios++;
    totals[r.status]++;
    for (const note of r.flaky) flaky.push({ test: r.title, note });
    totals.flaky += r.flaky.length;
    for (const d of r.drift) drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
    if (r.waits.count) waited.push({ test: r.title, waits: r.waits.count, seconds: r.waits.ms / 1000 });
    if (r.settleMs !== undefined) {
      settled++;
      settleMax = Math.max(settleMax, r.settleMs);
    }
    spend.sent += r.invites.sent;
    spend.charged += r.invites.charged;
    if (r.status === 'skipped' && /invite cap/.test(r.skipReason ?? ''))
      spend.skipped.push(`${r.title}: ${r.skipReason}`);
    for (const o of r.observations ?? []) {
      if (o.point === 'reading') {
        facts.push(o);
        continue;
      }
      // Which name won is the reading's `conflict` too (the key's pair included).
      const word = { refused: 'refuse', canonical: 'canonical', alias: 'alias' }[o.value];
      if (word) facts.push({ point: 'reading', knob: 'conflict', value: word });
      const key = `${o.endpoint} ${o.subject}`;
      const seen = conflicts.get(key) ?? { endpoint: o.endpoint, subject: o.subject, byMethod: {} };
      const before = seen.byMethod[o.method];
      seen.byMethod[o.method] = before && before !== o.value ? `${before}, ${o.value}` : o.value;
      conflicts.set(key, seen);
    }
    // Every clause the scenario is about, judged, or found broken or warned: each finding counts for its own clause.
    const ids = new Set<ClauseId>([
      ...r.clauses,
      ...r.judged,
      ...r.findings.map((f) => f.clause),
      ...r.warned.map((f) => f.clause),
    ]);
    for (const id of ids) {
      const c = clauses.get(id);
      if (!c) continue;
      c.tests++;
      const mine = r.findings.filter((f) => f.clause === id);
      if (mine.length) {
        c.failed++;
        for (const f of mine.slice(0, Math.max(0, MAX_LISTED - c.failures.length)))
          c.failures.push({
            test: r.title,
            endpoint: f.endpoint,
            ...(f.method ? { method: f.method } : {}),
            ...(f.aliases ? { aliases: f.aliases } : {}),
            path: f.path,
            expected: f.expected,
            actual: f.actual,
          });
      } else if (r.judged.includes(id)) {
        c.passed++;
      } else if (r.notJudged?.clauses.includes(id)) {
        c.skipped++;
        reason(c, r.notJudged.reason);
      } else if (r.clauses.includes(id) && r.status === 'inconclusive') {
        c.inconclusive++;
        cause(c, r.skipReason ?? 'could not judge');
      } else if (r.clauses.includes(id) && r.status === 'skipped') {
        c.skipped++;
        reason(c, r.skipReason ?? 'not run');
      } else if (r.clauses.includes(id)) {
        unjudged.set(id, [...(unjudged.get(id) ?? []), `${r.title}: its answers gave it nothing to judge`]);
      }
      for (const w of r.warned.filter((f) => f.clause === id).slice(0, Math.max(0, MAX_LISTED - c.warnings.length)))
        c.warnings.push({
          test: r.title,
          endpoint: w.endpoint,
          ...(w.method ? { method: w.method } : {}),
          path: w.path,
          expected: w.expected,
          actual: w.actual,
          reason: w.reason,
        });
    }
  }
  for (const c of clauses.values()) {
    const deviation = run.deviations?.find((d) => d.clause === c.id);
    // A balance may move between two reads for reasons of its own (a top-up, a refund): one rise around one invite,
    // beside invites that did not raise it, does not tell a breach from that. BAL-2 is violated when it rises again.
    if (c.id === 'BAL-2' && c.failed === 1 && c.passed > 0) {
      c.status = 'inconclusive';
      cause(
        c,
        `the balance rose around one invite only (${c.failures[0]?.test ?? ''}), not around ${c.passed} other(s): a top-up or refund between the two reads can explain one rise; run again to see whether it repeats`,
      );
      continue;
    }
    if (c.failed > 0) c.status = 'violated';
    else if (c.warnings.length > 0) {
      c.status = 'not-judged';
      reason(c, `a known deviation: ${c.warnings[0]?.reason ?? deviation?.reason ?? ''}`);
    } else if (c.inconclusive > 0) c.status = 'inconclusive';
    else if (c.passed > 0) c.status = 'held';
    else if (unjudged.has(c.id)) {
      c.status = 'inconclusive';
      for (const why of unjudged.get(c.id) ?? []) cause(c, why);
    } else {
      c.status = 'not-judged';
      if (c.tests === 0) reason(c, 'no scenario of the run judges it (--grep)');
    }
  }
  const driftList = [...drift.values()];
  const all = [...clauses.values()];
  const result: RunOutcome =
    all.some((c) => c.status === 'violated') || (run.strict && driftList.length > 0)
      ? 'violated'
      : all.some((c) => c.status === 'inconclusive') || totals.inconclusive > 0
        ? 'inconclusive'
        : 'held';
  const warning = refusalWarning(records);
  return {
    result,
    target: run.target,
    allowWrites: run.allowWrites,
    strict: run.strict,
    ...(run.seed !== undefined ? { seed: run.seed } : {}),
    failureFiles: records.reduce((a, r) => a + (r.failures?.length ?? 0), 0),
    totals,
    clauses: all,
    drift: driftList,
    flaky,
    warnings: warning ? [warning] : [],
    conflicts: [...conflicts.values()],
    reading: learnReading(facts, run),
    vocabulary: learnVocabulary(facts, [...conflicts.values()]),
    rateLimits: {
      waits: waited.reduce((a, w) => a + w.waits, 0),
      seconds: Math.round(waited.reduce((a, w) => a + w.seconds, 0) * 10) / 10,
      scenarios: waited,
    },
    settle: { scenarios: settled, maxMs: settleMax, windowMs: run.settleMs },
    spend,
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

/** The summary as Markdown, fit for a CI job summary. */
export function summaryMarkdown(s: ContractSummary): string {
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
  lines.push(
    '',
    '| Clause | Outcome | Scenarios (held/violated/inconclusive/not run) | Where it broke, or why it was not judged |',
    '|---|---|---|---|',
  );
  for (const c of s.clauses) {
    const where = [
      ...c.failures
        .slice(0, 3)
        .map((f) =>
          f.error
            ? `${f.endpoint}: ${f.error}`
            : `${findingPlace(f)} ${findingDetail({ ...f, path: `\`${f.path}\`` })}`,
        ),
      ...c.warnings
        .slice(0, 2)
        .map((w) => `known deviation (${w.reason}): ${w.endpoint} ${w.method ?? ''} \`${w.path}\``),
      ...(c.status === 'inconclusive' ? c.causes.slice(0, 3) : c.status === 'not-judged' ? c.reasons.slice(0, 2) : []),
    ]
      .join('<br>')
      .replace(/\|/g, '\\|');
    lines.push(`| ${c.id} | ${ICON[c.status]} | ${c.passed}/${c.failed}/${c.inconclusive}/${c.skipped} | ${where} |`);
  }
  lines.push(
    '',
    `Invites: ${s.spend.sent} sent, ${s.spend.charged} charged or maybe charged, cap ${s.spend.cap}.` +
      (s.spend.skipped.length ? ` Kept from running by the cap: ${s.spend.skipped.length}.` : ''),
  );
  for (const k of s.spend.skipped.slice(0, 10)) lines.push(`- ${k}`);
  if (s.settle.scenarios)
    lines.push(
      '',
      `Read-after-write: ${s.settle.scenarios} scenario(s) read what an invite wrote; the slowest showed after ${s.settle.maxMs} ms (window ${s.settle.windowMs} ms).`,
    );
  if (s.conflicts.length) {
    lines.push(
      '',
      `## Two names of one parameter at once (${s.conflicts.length}): observed, never a violation`,
      '',
      'Each request sent two names of one parameter with different values; the target refused it, used the canonical',
      "name's value, or the alias's (the answer was judged as the answer to the value it used).",
      '',
    );
    for (const o of s.conflicts)
      lines.push(
        `- ${o.endpoint} ${o.subject}: ${Object.entries(o.byMethod)
          .map(([m, v]) => `${v} (${m})`)
          .join(', ')}`,
      );
  }
  if (s.sinceBaseline) lines.push('', ...baselineLines(s.sinceBaseline));
  if (s.reading.length) {
    const cell = (t: string): string => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    lines.push(
      '',
      '## Provider reading: what this provider does where its description is silent',
      '',
      'Facts, never violations. `reports/provider-reading.yaml` holds them in the form `h2h mock --legal-profile` reads.',
      '',
      '| Open point | What the description says | What this provider does | Evidence |',
      '|---|---|---|---|',
    );
    for (const p of s.reading) {
      const does = p.value === undefined ? `not learned: ${p.note ?? ''}` : `${p.value}${p.note ? ` (${p.note})` : ''}`;
      const ev = p.evidence ? `${p.evidence.method} ${p.evidence.url} → HTTP ${p.evidence.httpStatus}` : '';
      lines.push(`| ${p.knob}: ${cell(aboutKnob(p.knob))} | ${cell(p.described)} | ${cell(does)} | ${cell(ev)} |`);
    }
  }
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
    lines.push('', `## Flaky (${s.flaky.length}): transport errors that passed on their one retry`, '');
    for (const f of s.flaky) lines.push(`- ${f.test}: ${f.note}`);
  }
  return `${lines.join('\n')}\n`;
}

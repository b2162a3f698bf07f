import { CLAUSE_IDS, type ClauseId, type Drift } from '../openapi/types.js';
import type { ScenarioResult } from './scenario-result.js';

export type ClauseStatus = 'passed' | 'failed' | 'warn' | 'skipped';

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
  status: ClauseStatus;
  /** Scenarios that judged this clause, or would have. */
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  failures: ClauseFailure[];
  warnings: (ClauseFailure & { reason: string })[];
  skipReasons: string[];
}

export interface ContractSummary {
  result: 'passed' | 'failed';
  target: string;
  allowWrites: boolean;
  strict: boolean;
  /** The seed of the generated cases (`--seed` repeats them). */
  seed?: number;
  /** Failing generated cases saved for `h2h replay`. */
  failureFiles: number;
  totals: { scenarios: number; passed: number; failed: number; skipped: number; flaky: number };
  clauses: ClauseSummary[];
  drift: Drift[];
  flaky: { test: string; note: string }[];
  /** Rate-limit answers waited out (never a violation). */
  rateLimits: { waits: number; seconds: number; scenarios: { test: string; waits: number; seconds: number }[] };
  /** How long what invites wrote took to show in cek-trx-id and history (INV-5, INV-6), within --settle. */
  settle: { scenarios: number; maxMs: number; windowMs: number };
  /** Invites sent and charged (or maybe charged), against the cap; what the cap kept from running. */
  spend: { sent: number; charged: number; cap: number; skipped: string[] };
}

const MAX_LISTED = 20;

/** The summary of a run's scenario records. */
export function summarize(
  records: readonly ScenarioResult[],
  run: {
    target: string;
    allowWrites: boolean;
    strict: boolean;
    cap: number;
    settleMs: number;
    runStatus: string;
    seed?: number;
  },
): ContractSummary {
  const clauses = new Map<ClauseId, ClauseSummary>(
    CLAUSE_IDS.map((id) => [
      id,
      {
        id,
        status: 'skipped',
        tests: 0,
        passed: 0,
        failed: 0,
        skipped: 0,
        failures: [],
        warnings: [],
        skipReasons: [],
      },
    ]),
  );
  const drift = new Map<string, Drift>();
  const totals = { scenarios: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  const flaky: { test: string; note: string }[] = [];
  const waited: ContractSummary['rateLimits']['scenarios'] = [];
  const spend = { sent: 0, charged: 0, cap: run.cap, skipped: [] as string[] };
  let settled = 0;
  let settleMax = 0;
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
    for (const id of new Set([...r.clauses, ...r.judged])) {
      const c = clauses.get(id);
      if (!c) continue;
      c.tests++;
      const mine = r.findings.filter((f) => f.clause === id);
      const brokeWithoutAnswer = r.transport !== undefined && r.clauses.includes(id);
      if (mine.length || brokeWithoutAnswer) {
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
        if (brokeWithoutAnswer && c.failures.length < MAX_LISTED)
          c.failures.push({ test: r.title, endpoint: r.endpoint, error: r.transport });
      } else if (r.judged.includes(id)) {
        c.passed++;
      } else {
        c.skipped++;
        const reason = r.skipReason ?? 'not judged';
        if (!c.skipReasons.includes(reason) && c.skipReasons.length < MAX_LISTED) c.skipReasons.push(reason);
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
  for (const c of clauses.values())
    c.status = c.failed > 0 ? 'failed' : c.warnings.length > 0 ? 'warn' : c.passed > 0 ? 'passed' : 'skipped';
  const driftList = [...drift.values()];
  const failed =
    totals.failed > 0 ||
    [...clauses.values()].some((c) => c.status === 'failed') ||
    (run.strict && driftList.length > 0) ||
    run.runStatus !== 'passed';
  return {
    result: failed ? 'failed' : 'passed',
    target: run.target,
    allowWrites: run.allowWrites,
    strict: run.strict,
    ...(run.seed !== undefined ? { seed: run.seed } : {}),
    failureFiles: records.reduce((a, r) => a + (r.failures?.length ?? 0), 0),
    totals,
    clauses: [...clauses.values()],
    drift: driftList,
    flaky,
    rateLimits: {
      waits: waited.reduce((a, w) => a + w.waits, 0),
      seconds: Math.round(waited.reduce((a, w) => a + w.seconds, 0) * 10) / 10,
      scenarios: waited,
    },
    settle: { scenarios: settled, maxMs: settleMax, windowMs: run.settleMs },
    spend,
  };
}

const ICON: Record<ClauseStatus, string> = { passed: 'pass', failed: '**FAIL**', warn: 'warn', skipped: 'skipped' };

/** The summary as Markdown, fit for a CI job summary. */
export function summaryMarkdown(s: ContractSummary): string {
  const lines = [
    `# H2H contract: ${s.result === 'passed' ? 'holds' : '**violated**'}`,
    '',
    `Target ${s.target}; writes ${s.allowWrites ? 'allowed' : 'not allowed'}; ${s.strict ? 'strict (drift fails)' : 'drift reported only'}. ` +
      `Scenarios: ${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.skipped} skipped, ${s.totals.flaky} flaky.` +
      (s.seed !== undefined ? ` Seed ${s.seed} (\`--seed ${s.seed}\` generates the same cases).` : '') +
      (s.failureFiles
        ? ` ${s.failureFiles} failing generated case(s) saved in reports/failures/ (\`h2h replay\`).`
        : ''),
    '',
    '| Clause | Result | Scenarios (pass/fail/skip) | Where it broke |',
    '|---|---|---|---|',
  ];
  for (const c of s.clauses) {
    const where = [
      ...c.failures
        .slice(0, 3)
        .map((f) =>
          f.error
            ? `${f.endpoint}: ${f.error}`
            : `${f.endpoint} ${f.method ?? ''}${f.aliases?.length ? ` via ${f.aliases.join(',')}` : ''} \`${f.path}\`: expected ${f.expected}, got ${f.actual}`,
        ),
      ...c.warnings
        .slice(0, 2)
        .map((w) => `known deviation (${w.reason}): ${w.endpoint} ${w.method ?? ''} \`${w.path}\``),
      ...(c.status === 'skipped' ? c.skipReasons.slice(0, 2) : []),
    ]
      .join('<br>')
      .replace(/\|/g, '\\|');
    lines.push(`| ${c.id} | ${ICON[c.status]} | ${c.passed}/${c.failed}/${c.skipped} | ${where} |`);
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

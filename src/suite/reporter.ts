import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { redact } from '../redact.js';
import { CLAUSE_IDS, type ClauseId, type Drift } from '../spec/types.js';
import { configFromEnv } from './config.js';
import type { ResultRecord } from './execute.js';

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
  totals: { tests: number; passed: number; failed: number; skipped: number; flaky: number };
  clauses: ClauseSummary[];
  drift: Drift[];
  flaky: { test: string; note: string }[];
}

const MAX_LISTED = 20;

/** Writes reports/contract-summary.json and .md: per clause, what passed, failed, warned or was skipped, and where. */
export default class ContractSummaryReporter implements Reporter {
  private readonly outputDir: string;
  private readonly clauses = new Map<ClauseId, ClauseSummary>();
  private readonly drift = new Map<string, Drift>();
  private readonly flaky: { test: string; note: string }[] = [];
  private readonly totals = { tests: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };

  constructor(options: { outputDir?: string } = {}) {
    this.outputDir = options.outputDir ?? 'reports';
    for (const id of CLAUSE_IDS) {
      this.clauses.set(id, {
        id,
        status: 'skipped',
        tests: 0,
        passed: 0,
        failed: 0,
        skipped: 0,
        failures: [],
        warnings: [],
        skipReasons: [],
      });
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const records = result.attachments
      .filter((a) => a.name === 'h2h-result' && a.body)
      .map((a) => JSON.parse(a.body?.toString() ?? '{}') as ResultRecord);
    if (records.length === 0 && result.status !== 'passed' && result.status !== 'skipped') {
      // The test broke before any scenario reported (a crash of the suite itself): its clauses count as failed.
      const clauses = test.annotations.filter((a) => a.type === 'clause').map((a) => a.description as ClauseId);
      const error = redact(result.error?.message?.split('\n')[0] ?? result.status);
      records.push({
        title: test.title,
        status: 'failed',
        clauses,
        endpoint: '',
        methods: [],
        aliases: [],
        findings: [],
        warned: [],
        drift: [],
        flaky: [],
        transport: error,
        exchanges: [],
      });
    }
    for (const record of records) this.add(record);
  }

  /** Counts one scenario's record into its clauses. */
  private add(record: ResultRecord): void {
    this.totals.tests++;
    if (record.status === 'skipped') this.totals.skipped++;
    else if (record.status === 'passed') this.totals.passed++;
    else this.totals.failed++;
    for (const note of record.flaky) {
      this.flaky.push({ test: record.title, note });
      this.totals.flaky++;
    }
    for (const d of record.drift) this.drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
    for (const id of record.clauses) {
      const c = this.clauses.get(id);
      if (!c) continue;
      c.tests++;
      if (record.status === 'skipped') {
        c.skipped++;
        if (record.skipReason && !c.skipReasons.includes(record.skipReason)) c.skipReasons.push(record.skipReason);
        continue;
      }
      const mine = record.findings.filter((f) => f.clause === id);
      if (mine.length || record.transport) {
        c.failed++;
        for (const f of mine) {
          if (c.failures.length >= MAX_LISTED) break;
          c.failures.push({
            test: record.title,
            endpoint: f.endpoint,
            ...(f.method ? { method: f.method } : {}),
            ...(f.aliases ? { aliases: f.aliases } : {}),
            path: f.path,
            expected: f.expected,
            actual: f.actual,
          });
        }
        if (record.transport && c.failures.length < MAX_LISTED)
          c.failures.push({ test: record.title, endpoint: record.endpoint, error: record.transport });
      } else {
        c.passed++;
      }
      for (const w of record.warned.filter((f) => f.clause === id)) {
        if (c.warnings.length >= MAX_LISTED) break;
        c.warnings.push({
          test: record.title,
          endpoint: w.endpoint,
          ...(w.method ? { method: w.method } : {}),
          path: w.path,
          expected: w.expected,
          actual: w.actual,
          reason: w.reason,
        });
      }
    }
  }

  onEnd(result: FullResult): void {
    const cfg = (() => {
      try {
        return configFromEnv();
      } catch {
        return undefined;
      }
    })();
    for (const c of this.clauses.values()) {
      c.status = c.failed > 0 ? 'failed' : c.warnings.length > 0 ? 'warn' : c.passed > 0 ? 'passed' : 'skipped';
    }
    const drift = [...this.drift.values()];
    const anyFailed =
      [...this.clauses.values()].some((c) => c.status === 'failed') || (cfg?.strict === true && drift.length > 0);
    const summary: ContractSummary = {
      result: anyFailed || result.status !== 'passed' ? 'failed' : 'passed',
      target: redact(process.env.H2H_BASE_URL ?? cfg?.baseUrl ?? '(embedded simulator)'),
      allowWrites: cfg?.allowWrites ?? false,
      strict: cfg?.strict ?? false,
      totals: this.totals,
      clauses: [...this.clauses.values()],
      drift,
      flaky: this.flaky,
    };
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, 'contract-summary.json'), `${redact(JSON.stringify(summary, null, 2))}\n`);
    writeFileSync(join(this.outputDir, 'contract-summary.md'), redact(summaryMarkdown(summary)));
  }

  printsToStdio(): boolean {
    return false;
  }
}

const ICON: Record<ClauseStatus, string> = { passed: 'pass', failed: '**FAIL**', warn: 'warn', skipped: 'skipped' };

/** The summary as Markdown, fit for a CI job summary. */
export function summaryMarkdown(s: ContractSummary): string {
  const lines = [
    `# H2H contract: ${s.result === 'passed' ? 'holds' : '**violated**'}`,
    '',
    `Target ${s.target}; writes ${s.allowWrites ? 'allowed' : 'not allowed'}; ${s.strict ? 'strict (drift fails)' : 'drift reported only'}. ` +
      `Tests: ${s.totals.passed} passed, ${s.totals.failed} failed, ${s.totals.skipped} skipped, ${s.totals.flaky} flaky.`,
    '',
    '| Clause | Result | Tests (pass/fail/skip) | Where it broke |',
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
  lines.push('', `## Drift (${s.drift.length})`, '');
  if (s.drift.length === 0) lines.push('No field or status value outside openapi.yaml.');
  for (const d of s.drift)
    lines.push(`- ${d.endpoint}: ${d.kind} \`${d.path}\`${d.value !== undefined ? ` = \`${d.value}\`` : ''}`);
  if (s.flaky.length) {
    lines.push('', `## Flaky (${s.flaky.length}): transport errors that passed on their one retry`, '');
    for (const f of s.flaky) lines.push(`- ${f.test}: ${f.note}`);
  }
  return `${lines.join('\n')}\n`;
}

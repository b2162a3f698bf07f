import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { loadApiModel } from '../src/openapi/load.ts';
import type { Finding } from '../src/openapi/types.ts';
import { buildCatalogue } from '../src/plan/catalogue/index.ts';
import { planRun } from '../src/plan/plan.ts';
import { DID_NOT_REPORT, emptyResult, findingLines, skippedResult } from '../src/report/scenario-result.ts';
import { type ContractSummary, summarize, summaryMarkdown } from '../src/report/summary.ts';
import { writeRunFile } from '../src/run/handover.ts';
import ContractSummaryReporter from '../suites/summary-reporter.ts';
import { contractConfigOf } from './helpers.ts';

// The reporter's own rules, on the objects Playwright hands it: a test cut off by its timeout cannot make the
// summary say "pass" for the scenarios it never reached. (Forcing a real Playwright timeout would need a
// scenario slower than its own budget, which the fixture computes so that it never is.)

const plan = planRun(buildCatalogue(loadApiModel()), { allowWrites: false, maxInvites: 10, canonicalOnly: false });
const history = plan.entries.filter((e) => e.scenario.area === 'history').slice(0, 3);

describe('the summary reporter', () => {
  it('a scenario that never reported is inconclusive with the reason, and the run with it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'h2h-reporter-'));
    const reporter = new ContractSummaryReporter({ outputDir: dir });
    const [first, ...rest] = history;
    assert.ok(first && rest.length === 2);
    const done = { ...emptyResult(first), judged: first.scenario.clauses };
    const test = {
      title: 'history-transaksi GET: HIS-1 HIS-2',
      annotations: history.map((e) => ({
        type: 'scenario',
        description: JSON.stringify(skippedResult(e, DID_NOT_REPORT)),
      })),
    } as unknown as TestCase;
    const result = {
      status: 'timedOut',
      duration: 61_000,
      error: { message: 'Test timeout of 60000ms exceeded.' },
      attachments: [{ name: 'h2h-result', contentType: 'application/json', body: Buffer.from(JSON.stringify(done)) }],
    } as unknown as TestResult;
    reporter.onTestEnd(test, result);
    // The run file the global setup writes: without it the run never began, and no summary is written.
    const { remove } = writeRunFile({
      config: { ...contractConfigOf([]), baseUrl: 'http://127.0.0.1:1', maxInvites: 10, seed: 1 },
      targetLabel: 't',
      data: { seen: 0 },
      runId: 'R',
      pacePort: 0,
    });
    try {
      reporter.onBegin();
      reporter.onEnd();
    } finally {
      remove();
      delete process.env.H2H_RUN_FILE;
    }
    const summary = JSON.parse(readFileSync(join(dir, 'contract-summary.json'), 'utf8')) as ContractSummary;
    assert.equal(summary.result, 'inconclusive');
    assert.deepEqual(summary.totals, { scenarios: 3, passed: 1, failed: 0, skipped: 0, inconclusive: 2, flaky: 0 });
    for (const e of rest) {
      for (const clause of e.scenario.clauses) {
        const c = summary.clauses.find((x) => x.id === clause);
        assert.notEqual(c?.status, 'held', `${clause} of an unreported scenario is never held`);
        assert.match(c?.causes.join(' ') ?? '', /did not report/);
      }
    }
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    assert.equal((junit.match(/<testcase /g) ?? []).length, 3);
    assert.match(
      junit,
      /inconclusive: did not report: the test ended \(timedOut, after 61 s\)[^<]*Test timeout of 60000ms exceeded/,
    );
  });

  it('a clause broken by many records reads as one line with the count and the first three', () => {
    const findings: Finding[] = Array.from({ length: 37 }, (_, i) => ({
      clause: 'HIS-4',
      endpoint: 'history-transaksi',
      method: 'POST',
      path: `$.data[${i}]`,
      expected: 'a record containing "TRX-1"',
      actual: `"TRX-${i + 2}"`,
      message: '',
    }));
    const date: Finding = { ...(findings[0] as Finding), clause: 'HIS-1', path: '$.data[0].date' };
    const lines = findingLines([...findings, date]);
    assert.equal(lines.length, 2);
    assert.match(
      lines[0] ?? '',
      /^HIS-4 \[history-transaksi POST\] 37 places broke it; first 3: \$\.data\[0\]: .*; \$\.data\[1\]: .*; \$\.data\[2\]: /,
    );
    assert.ok(!(lines[0] ?? '').includes('$.data[3]'));
    assert.match(lines[1] ?? '', /^HIS-1 \[history-transaksi POST\] \$\.data\[0\]\.date: expected/);
  });

  it('warns when most answers were one refusal: the run hardly reached the business logic', () => {
    const [one] = history;
    assert.ok(one);
    const record = (total: number, refusals: Record<string, number>) => ({
      ...emptyResult(one),
      answers: { total, refusals },
    });
    const run = { target: 't', allowWrites: false, strict: false, cap: 0, settleMs: 0 };
    const mostly = summarize(
      [record(100, { 'HTTP 403 FORBIDDEN': 95 }), record(20, { 'HTTP 403 FORBIDDEN': 20 })],
      run,
    );
    assert.equal(mostly.warnings.length, 1);
    assert.match(
      mostly.warnings[0] ?? '',
      /^96% of the 120 answers were one refusal \(HTTP 403 FORBIDDEN\): the run hardly/,
    );
    assert.match(summaryMarkdown(mostly), /\*\*Warning:\*\* 96% of the 120 answers/);
    const varied = summarize([record(100, { 'HTTP 403 FORBIDDEN': 40, 'HTTP 400 INVALID_MSISDN': 30 })], run);
    assert.deepEqual(varied.warnings, []);
  });
});

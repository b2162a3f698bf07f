import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { readingYaml } from '../src/reading/index.js';
import { redact } from '../src/redact.js';
import { junitXml } from '../src/report/junit.js';
import type { ScenarioResult } from '../src/report/scenario-result.js';
import { summarize, summaryMarkdown } from '../src/report/summary.js';
import { type RunFile, readRunFile } from '../src/run/handover.js';

/** A planned scenario that never reported (its test ended first): it could not judge, and says why. */
function missingRecord(planned: ScenarioResult, result: TestResult): ScenarioResult {
  const why = redact(result.error?.message?.split('\n')[0] ?? `the test ended ${result.status}`);
  return {
    ...planned,
    status: 'inconclusive',
    skipKind: 'no-report',
    skipReason: `did not report: the test ended (${result.status}, after ${Math.round(result.duration / 1000)} s) before this scenario finished: ${why}`,
  };
}

/**
 * Writes reports/contract-summary.json and .md (per clause: held, violated, inconclusive or not judged, and
 * where or why) and
 * reports/junit.xml (one test case per scenario, named by clause, endpoint, method and alias).
 */
export default class ContractSummaryReporter implements Reporter {
  private readonly outputDir: string;
  private readonly records: ScenarioResult[] = [];
  private run: RunFile | undefined;

  constructor(options: { outputDir?: string } = {}) {
    this.outputDir = options.outputDir ?? 'reports';
  }

  /** Called after the global setup: the run file holds the config the run works with. */
  onBegin(): void {
    this.run = readRunFile();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const reported = result.attachments
      .filter((a) => a.name === 'h2h-result' && a.body)
      .map((a) => JSON.parse(a.body?.toString() ?? '{}') as ScenarioResult);
    const titles = new Set(reported.map((r) => r.title));
    const planned = test.annotations
      .filter((a) => a.type === 'scenario' && a.description)
      .map((a) => JSON.parse(a.description ?? '{}') as ScenarioResult);
    // A test retried by Playwright reports again: the last attempt counts.
    for (const p of planned) {
      const i = this.records.findIndex((r) => r.title === p.title);
      if (i >= 0) this.records.splice(i, 1);
    }
    this.records.push(...reported, ...planned.filter((p) => !titles.has(p.title)).map((p) => missingRecord(p, result)));
  }

  onEnd(): void {
    // No run file: the global setup never finished (the suite broke, not the target). No summary is written, so
    // h2h contract says so as an internal error instead of a verdict.
    if (!this.run) return;
    const cfg = this.run?.config;
    const summary = summarize(this.records, {
      target: this.run?.targetLabel ?? '(no run: the global setup did not finish)',
      allowWrites: cfg?.allowWrites ?? false,
      strict: cfg?.strict ?? false,
      cap: cfg?.maxInvites ?? 0,
      settleMs: cfg?.settleMs ?? 0,
      ...(cfg ? { seed: cfg.seed, deviations: cfg.deviations } : {}),
    });
    mkdirSync(this.outputDir, { recursive: true });
    writeFileSync(join(this.outputDir, 'contract-summary.json'), `${redact(JSON.stringify(summary, null, 2))}\n`);
    writeFileSync(join(this.outputDir, 'contract-summary.md'), redact(summaryMarkdown(summary)));
    writeFileSync(join(this.outputDir, 'junit.xml'), redact(junitXml(this.records)));
    writeFileSync(
      join(this.outputDir, 'provider-reading.yaml'),
      redact(readingYaml(summary.reading, summary.vocabulary, { from: summary.target, at: new Date().toISOString() })),
    );
  }

  printsToStdio(): boolean {
    return false;
  }
}

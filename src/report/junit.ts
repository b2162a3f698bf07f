import junitModule, { type Builder } from 'junit-report-builder';
import type { ScenarioResult } from './scenario-result.js';

// junit-report-builder is CommonJS: under nodenext its default import is the module object on some toolchains.
const junit: Builder = (junitModule as unknown as { default?: Builder }).default ?? (junitModule as unknown as Builder);

/**
 * JUnit XML (junit-report-builder) with one test case per scenario, in one test suite per area, so that
 * GitHub's and GitLab's test views show which clause broke, on which endpoint, method and alias.
 */
export function junitXml(records: readonly ScenarioResult[]): string {
  const builder = junit.newBuilder().name('h2h-contract');
  const areas = new Map<string, ScenarioResult[]>();
  for (const r of records) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  for (const [area, rs] of areas) {
    const suite = builder.testSuite().name(area);
    for (const r of rs) {
      const tc = suite
        .testCase()
        .className(`h2h.${r.clauses.join('.')}.${r.endpoint}`)
        .name(r.title)
        .time((r.durationMs ?? 0) / 1000);
      // Inconclusive and not run by choice are both JUnit skips; the message says which, and why.
      if (r.status === 'skipped') tc.skipped().standardOutput(`not judged (the run's settings): ${r.skipReason ?? ''}`);
      if (r.status === 'inconclusive') tc.skipped().standardOutput(`inconclusive: ${r.skipReason ?? ''}`);
      if (r.status === 'failed') {
        // Each finding under its own clause, wherever it was found: the failure's type names them.
        const broken = [...new Set(r.findings.map((f) => f.clause))];
        tc.failure(r.lines[0] ?? 'failed', broken.length ? broken.join(' ') : 'drift').stacktrace(r.lines.join('\n'));
      }
    }
  }
  return builder.build();
}

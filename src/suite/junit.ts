import type { ScenarioResult } from './execute.js';

const escape = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 cannot hold.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/**
 * JUnit XML with one test case per scenario, grouped in one test suite per area, so that GitHub's and
 * GitLab's test views show which clause broke, on which endpoint, method and alias.
 */
export function junitXml(records: readonly ScenarioResult[]): string {
  const areas = new Map<string, ScenarioResult[]>();
  for (const r of records) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  const count = (rs: readonly ScenarioResult[], status: ScenarioResult['status']): number =>
    rs.filter((r) => r.status === status).length;
  const seconds = (rs: readonly ScenarioResult[]): string =>
    (rs.reduce((a, r) => a + (r.durationMs ?? 0), 0) / 1000).toFixed(3);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="h2h-contract" tests="${records.length}" failures="${count(records, 'failed')}" skipped="${count(records, 'skipped')}" errors="0" time="${seconds(records)}">`,
  ];
  for (const [area, rs] of areas) {
    out.push(
      `  <testsuite name="${escape(area)}" tests="${rs.length}" failures="${count(rs, 'failed')}" skipped="${count(rs, 'skipped')}" errors="0" time="${seconds(rs)}">`,
    );
    for (const r of rs) {
      const head = `    <testcase classname="h2h.${escape(r.clauses.join('.'))}.${escape(r.endpoint)}" name="${escape(r.title)}" time="${((r.durationMs ?? 0) / 1000).toFixed(3)}"`;
      if (r.status === 'passed') {
        out.push(`${head}/>`);
        continue;
      }
      out.push(`${head}>`);
      if (r.status === 'skipped') out.push(`      <skipped message="${escape(r.skipReason ?? '')}"/>`);
      else {
        out.push(
          `      <failure message="${escape(r.lines[0] ?? 'failed')}" type="${r.transport ? 'transport' : 'contract'}">${escape(r.lines.join('\n'))}</failure>`,
        );
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

import { findingDetail, findingPlace } from '../checks/util.js';
import type { Drift, Finding } from '../openapi/types.js';

/** Findings and drift as readable lines (the caller's Io redacts them). */
export function formatFindings(findings: readonly Finding[], drift: readonly Drift[], header: string): string {
  const lines = [header];
  if (findings.length === 0) lines.push('  contract holds: no clause broken');
  for (const f of findings) {
    lines.push(`  FAIL ${f.clause} [${findingPlace(f)}] ${findingDetail(f)}`);
  }
  for (const d of drift)
    lines.push(
      `  drift ${d.kind} ${d.path}${d.value !== undefined ? ` = ${JSON.stringify(d.value)}` : ''} (not named by openapi.yaml)`,
    );
  return lines.join('\n');
}

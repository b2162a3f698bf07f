import { readFileSync } from 'node:fs';
import type { Drift } from '../openapi/types.js';
import { UsageError } from '../shared/config-file.js';
import { changeLine, compareReadings } from './reading-changes.js';
import type { BaselineChanges, ContractSummary } from './summary-schema.js';

/** A baseline: an earlier contract-summary.json. A file that is not one is a usage error (exit 2). */
export function readBaseline(file: string): ContractSummary {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--baseline ${file}: not a readable contract-summary.json (${(err as Error).message})`);
  }
  const s = raw as Partial<ContractSummary>;
  if (!s || typeof s !== 'object' || !Array.isArray(s.clauses) || !Array.isArray(s.drift))
    throw new UsageError(`--baseline ${file}: not a contract-summary.json (no clauses and drift)`);
  return {
    ...s,
    reading: Array.isArray(s.reading) ? s.reading : [],
    vocabulary: s.vocabulary && typeof s.vocabulary === 'object' ? s.vocabulary : {},
  } as ContractSummary;
}

const driftKey = (d: Drift): string =>
  `${d.endpoint}: ${d.kind === 'http' ? 'HTTP status' : d.kind} \`${d.path}\`${d.value ? ` = ${d.value}` : ''}`;

/** The changes from `before` to `now`. */
export function compareToBaseline(file: string, before: ContractSummary, now: ContractSummary): BaselineChanges {
  const status = (s: ContractSummary, id: string): string | undefined => s.clauses.find((c) => c.id === id)?.status;
  const newlyViolated: string[] = [];
  const newlyHolding: string[] = [];
  for (const c of now.clauses) {
    const was = status(before, c.id);
    if (c.status === 'violated' && was !== 'violated') newlyViolated.push(`${c.id} (was ${was ?? 'absent'})`);
    if (c.status === 'held' && was === 'violated') newlyHolding.push(c.id);
  }
  const a = new Set(before.drift.map(driftKey));
  const b = new Set(now.drift.map(driftKey));
  return {
    file,
    newlyViolated,
    newlyHolding,
    driftNew: [...b].filter((k) => !a.has(k)),
    driftGone: [...a].filter((k) => !b.has(k)),
    ...(({ changes, notSeen }) => ({ reading: changes, notSeen }))(compareReadings(before, now)),
  };
}

/** Whether anything changed at all. */
export const changedSince = (c: BaselineChanges): boolean =>
  [c.newlyViolated, c.newlyHolding, c.driftNew, c.driftGone, c.reading].some((l) => l.length > 0);

/** The "Since the baseline" section of contract-summary.md. */
export function baselineLines(c: BaselineChanges): string[] {
  const lines = [`## Since the baseline (${c.file})`, ''];
  const notSeen = (c.notSeen ?? []).length
    ? [
        '',
        `Learned in one run only (never a change): ${(c.notSeen ?? []).slice(0, 20).join('; ')}${(c.notSeen ?? []).length > 20 ? `; and ${(c.notSeen ?? []).length - 20} more` : ''}.`,
      ]
    : [];
  if (!changedSince(c))
    return [...lines, 'Nothing changed: the same clauses hold, the same drift, the same reading.', ...notSeen];
  const list = (title: string, items: string[]): void => {
    if (items.length) lines.push(`- ${title}: ${items.join('; ')}`);
  };
  list('newly violated', c.newlyViolated);
  list('newly holding', c.newlyHolding);
  list('drift first seen', c.driftNew);
  list('drift gone', c.driftGone);
  if (c.reading.length) {
    lines.push('- the provider’s reading changed (a fact, not a violation), graded by what it does to a client:');
    for (const change of c.reading) lines.push(`  - ${changeLine(change)}`);
  }
  return [...lines, ...notSeen];
}

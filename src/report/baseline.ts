import { KNOB_NAMES } from '../openapi/open-points.js';
import type { Drift } from '../openapi/types.js';
import { changeLine, compareReadings, READING_FILE_SCHEMA, type ReadingFile, vocabularyOf } from '../reading/index.js';
import { readYamlFile, UsageError, validateConfig } from '../shared/config-file.js';
import type { BaselineChanges, ContractSummary } from './summary-schema.js';

/**
 * A baseline: an earlier contract-summary.json, or a provider-reading.yaml (the reading alone: its knobs and
 * vocabulary are compared, clauses and drift are not). A file that is neither is a usage error (exit 2).
 */
/** A baseline: a summary, or a reading file's reading alone (`readingOnly`: no clauses, no drift to compare). */
export type Baseline = Pick<ContractSummary, 'clauses' | 'drift' | 'reading' | 'vocabulary'> & { readingOnly?: true };

export function readBaseline(file: string): Baseline {
  // YAML holds JSON: one read, then the file's shape says which it is.
  const raw = readYamlFile(file, '--baseline');
  const s = raw as Partial<ContractSummary> | null;
  if (s && typeof s === 'object' && !Array.isArray(s) && !('clauses' in s) && !('drift' in s))
    return readingBaseline(file, raw);
  if (!s || typeof s !== 'object' || !Array.isArray(s.clauses) || !Array.isArray(s.drift))
    throw new UsageError(
      `--baseline ${file}: neither a contract-summary.json (no clauses and drift) nor a provider-reading.yaml`,
    );
  return {
    ...s,
    reading: Array.isArray(s.reading) ? s.reading : [],
    vocabulary: s.vocabulary && typeof s.vocabulary === 'object' ? s.vocabulary : {},
  } as ContractSummary;
}

/** A reading file (its schema checked) as a baseline that holds a reading and nothing else. */
function readingBaseline(file: string, raw: unknown): Baseline {
  const reading = validateConfig<ReadingFile>(READING_FILE_SCHEMA, raw, `--baseline ${file} (a reading file)`);
  const vocabulary = vocabularyOf(reading);
  return {
    readingOnly: true,
    clauses: [],
    drift: [],
    reading: KNOB_NAMES.filter((k) => reading[k] !== undefined).map((knob) => ({
      knob,
      described: '',
      value: String(reading[knob]),
      seen: {},
    })),
    vocabulary,
  } as Baseline;
}
const driftKey = (d: Drift): string =>
  `${d.endpoint}: ${d.kind === 'http' ? 'HTTP status' : d.kind} \`${d.path}\`${d.value ? ` = ${d.value}` : ''}`;

/** The changes from `before` to `now`. */
export function compareToBaseline(file: string, before: Baseline, now: ContractSummary): BaselineChanges {
  const status = (s: Baseline, id: string): string | undefined => s.clauses.find((c) => c.id === id)?.status;
  const newlyViolated: string[] = [];
  const newlyHolding: string[] = [];
  // A reading file holds no clauses and no drift: only the reading is compared.
  const readingOnly = before.readingOnly === true;
  for (const c of readingOnly ? [] : now.clauses) {
    const was = status(before, c.id);
    if (c.status === 'violated' && was !== 'violated') newlyViolated.push(`${c.id} (was ${was ?? 'absent'})`);
    if (c.status === 'held' && was === 'violated') newlyHolding.push(c.id);
  }
  const a = new Set(before.drift.map(driftKey));
  const b = new Set(readingOnly ? [] : now.drift.map(driftKey));
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

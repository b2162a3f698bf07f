// The last step of `npm run mutation`: reads StrykerJS's reports/mutation/mutation.json (what killed each mutant:
// the scenario, and the clause its failure message begins with, scripts/mutant-gate.ts) and holds it to
// test/mutation-classified.yaml:
// - every survivor is classified there, `legal` (the mutated answer keeps every clause: the clause text or the
//   knob that allows it) or `equivalent` (no answer of the reference reading changes), with its reason;
// - every killed mutant fell to a clause its answer really breaks: the kills are listed by clause in
//   reports/mutation/kills.md for that review, and a kill the file marks `false-alarm` is a gate defect.
// An entry names its mutant by file, the code it mutates and the replacement (never by line or id: both move).
// Prints the counts; exit 1 when a survivor is unclassified or an entry names no survivor (without a run,
// test/mutation-classified.test.ts holds that every entry still names a mutant of the code as it is).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export interface Location {
  start: { line: number; column: number };
  end: { line: number; column: number };
}
export interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  location: Location;
  status: string;
  statusReason?: string;
  killedBy?: string[];
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
  /** The tests (the gate's scenarios), by the ids killedBy gives. */
  testFiles?: Record<string, { tests: { id: string; name: string }[] }>;
}
/**
 * One classification: the mutants it names (by file, and any of: the code mutated, exactly or by a regular
 * expression; the replacement, likewise; the mutator; a piece of the source line the mutant starts on), what
 * they are and why.
 */
export interface Entry {
  file: string;
  original?: string;
  match?: string;
  replacement?: string;
  replacementMatch?: string;
  mutator?: string;
  line?: string;
  status: 'legal' | 'equivalent';
  reason: string;
}

/** Whether an entry names a mutant. */
export function names(e: Entry, file: string, m: Mutant, original: string, line: string): boolean {
  const replacement = fold(m.replacement ?? '');
  return (
    e.file === file &&
    (e.original === undefined || fold(e.original) === original) &&
    (e.match === undefined || new RegExp(e.match).test(original)) &&
    (e.replacement === undefined || fold(e.replacement) === replacement) &&
    (e.replacementMatch === undefined || new RegExp(e.replacementMatch).test(replacement)) &&
    (e.mutator === undefined || e.mutator === m.mutatorName) &&
    (e.line === undefined || line.includes(e.line))
  );
}

const REPORT = 'reports/mutation/mutation.json';
export const CLASSIFIED = 'test/mutation-classified.yaml';

/** The code a mutant replaces, from its file's source, whitespace folded. */
export function originalOf(source: string, loc: Location): string {
  const lines = source.split('\n');
  const text =
    loc.start.line === loc.end.line
      ? (lines[loc.start.line - 1] ?? '').slice(loc.start.column - 1, loc.end.column - 1)
      : [
          (lines[loc.start.line - 1] ?? '').slice(loc.start.column - 1),
          ...lines.slice(loc.start.line, loc.end.line - 1),
          (lines[loc.end.line - 1] ?? '').slice(0, loc.end.column - 1),
        ].join('\n');
  return fold(text);
}

export const fold = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The clause a kill fell to: its failure message begins with it, or says the run got no answer or broke. */
function clauseOf(reason: string | undefined): string {
  const clause = /^([A-Z]+-\d+) /.exec(reason ?? '')?.[1];
  if (clause) return clause;
  if (reason?.startsWith('(no answer)')) return '(no answer: the simulator threw)';
  if (reason?.startsWith('the run broke')) return '(the run broke)';
  return '(no record)';
}

/** The entries of test/mutation-classified.yaml. */
export function classified(): Entry[] {
  return (parse(readFileSync(CLASSIFIED, 'utf8')) as { mutants?: Entry[] } | null)?.mutants ?? [];
}

function main(): number {
  if (!existsSync(REPORT)) {
    console.error(`mutation-report: no ${REPORT}: run npm run mutation`);
    return 2;
  }
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
  const entries = classified();
  const used = new Set<Entry>();
  const testNames = new Map(
    Object.values(report.testFiles ?? {}).flatMap((f) => f.tests.map((t) => [t.id, t.name] as const)),
  );
  // Survivors whose code the reference run never reached (StrykerJS's NoCoverage): classified like the others, and
  // marked, since the gate sending no input that reaches a line is a gap of its own.
  let notReached = 0;
  const counts: Record<string, number> = {};
  const byClause: Record<string, string[]> = {};
  const unclassified: string[] = [];
  let legal = 0;
  let equivalent = 0;
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      const original = originalOf(source, m.location);
      const mark = m.status === 'NoCoverage' ? ' [not reached]' : '';
      const where = `${file}:${m.location.start.line}${mark} ${m.mutatorName}: ${original.slice(0, 80)} -> ${fold(m.replacement ?? '').slice(0, 80)}`;
      if (m.status === 'Killed') {
        const clause = clauseOf(m.statusReason);
        const scenario = (m.killedBy ?? []).map((id) => testNames.get(id) ?? id).join('; ');
        const list = byClause[clause] ?? [];
        byClause[clause] = list;
        list.push(`${where}\n    by: ${scenario || m.statusReason || ''}`);
      }
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      if (mark) notReached++;
      const line = source.split('\n')[m.location.start.line - 1] ?? '';
      const entry = entries.find((e) => names(e, file, m, original, line));
      if (!entry) {
        unclassified.push(where);
        continue;
      }
      used.add(entry);
      if (entry.status === 'legal') legal++;
      else equivalent++;
    }
  }
  // A run of some files (`-- --mutate FILE`) says nothing of the entries of the others, nor a run of changed lines
  // with no earlier results to complete its files (H2H_MUTATION_PARTIAL, scripts/mutation.sh) of any.
  const partial = process.env.H2H_MUTATION_PARTIAL === '1';
  const stale = entries.filter((e) => !partial && !used.has(e) && e.file in report.files);
  const lines = ['# Killed mutants by the clause they fell to (review: does the answer really break it?)', ''];
  for (const [clause, list] of Object.entries(byClause).sort())
    lines.push(`## ${clause} (${list.length})`, '', ...list.map((l) => `- ${l}`), '');
  writeFileSync('reports/mutation/kills.md', `${lines.join('\n')}\n`);
  const total = Object.values(counts).reduce((a, n) => a + n, 0);
  console.log(
    `mutation: ${total} mutants; killed ${counts.Killed ?? 0}, timed out ${counts.Timeout ?? 0}, survived ${
      (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
    } (legal ${legal}, equivalent ${equivalent}, unclassified ${unclassified.length}; not reached by the run ${notReached}); other ${
      total - (counts.Killed ?? 0) - (counts.Timeout ?? 0) - (counts.Survived ?? 0) - (counts.NoCoverage ?? 0)
    }`,
  );
  console.log(
    `mutation: kills by clause: ${Object.entries(byClause)
      .sort()
      .map(([c, l]) => `${c} ${l.length}`)
      .join(', ')} (listed in reports/mutation/kills.md)`,
  );
  for (const u of unclassified) console.log(`UNCLASSIFIED ${u}`);
  for (const s of stale)
    console.log(
      `STALE ${s.file}: ${s.original ?? s.match ?? s.line} -> ${s.replacement ?? ''} (names no survivor now)`,
    );
  return unclassified.length || stale.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) process.exitCode = main();

// `npm run mutation -- --since REF` (scripts/mutation.sh): prints StrykerJS's `--mutate` ranges for what changed
// since the branch left REF (`git diff -U0` from their merge base, the working tree included: what REF gained since
// is not this branch's change) in the files stryker.config.json mutates, or nothing when nothing there changed. A
// range is the whole top-level statement the change falls in (a class's member, for a class): a mutant is taken only
// when it lies whole inside a range, and a change inside a block changes the mutants of every block around it (an
// emptied `if` body, an emptied method). Within the ranges StrykerJS's incremental mode still reuses the result of
// every mutant whose code and covering scenarios did not change, and keeps the results of the rest of each file from
// the last run.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

interface Span {
  start: number;
  end: number;
}

/** The lines of each file that differ from REF, as spans of the file as it is now. */
export function changedLines(diff: string): Map<string, Span[]> {
  const out = new Map<string, Span[]>();
  let spans: Span[] | undefined;
  for (const line of diff.split('\n')) {
    const file = /^\+\+\+ b\/(.+)$/.exec(line)?.[1];
    if (file) {
      spans = [];
      out.set(file, spans);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!hunk || !spans) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    // Lines only taken away: the lines on either side of the gap.
    spans.push(count === 0 ? { start: Math.max(1, start), end: start + 1 } : { start, end: start + count - 1 });
  }
  return out;
}

/** The spans (lines, 1-based) of what a change falls in: top-level statements, and a class's members. */
export function enclosing(file: string, text: string, changed: readonly Span[]): Span[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = (n: ts.Node): Span => ({
    start: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1,
    end: sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1,
  });
  const meets = (a: Span, b: Span): boolean => a.start <= b.end && b.start <= a.end;
  const out: Span[] = [];
  for (const c of changed) {
    for (const st of sf.statements) {
      if (!meets(lines(st), c)) continue;
      const members = ts.isClassDeclaration(st) ? st.members.filter((m) => meets(lines(m), c)) : [];
      out.push(...(members.length ? members.map(lines) : [lines(st)]));
    }
  }
  return out;
}

function main(): void {
  const ref = process.argv[2];
  if (!ref) throw new Error('usage: mutation-since.ts REF');
  const files = (JSON.parse(readFileSync('stryker.config.json', 'utf8')) as { mutate: string[] }).mutate;
  const base = execFileSync('git', ['merge-base', ref, 'HEAD'], { encoding: 'utf8' }).trim();
  const diff = execFileSync('git', ['diff', '-U0', '--no-color', '--no-ext-diff', base, '--', ...files], {
    encoding: 'utf8',
  });
  const ranges: string[] = [];
  for (const [file, changed] of changedLines(diff)) {
    const spans = enclosing(file, readFileSync(file, 'utf8'), changed).sort((a, b) => a.start - b.start);
    const merged: Span[] = [];
    for (const s of spans) {
      const last = merged.at(-1);
      if (last && s.start <= last.end + 1) last.end = Math.max(last.end, s.end);
      else merged.push({ ...s });
    }
    ranges.push(...merged.map((s) => `${file}:${s.start}-${s.end}`));
  }
  if (ranges.length) console.log(ranges.join(','));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();

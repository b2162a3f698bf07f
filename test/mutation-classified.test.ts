import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Ignorer } from '@stryker-mutator/api/ignore';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { classified, type Entry, type Mutant, names, originalOf } from '../scripts/mutation-report.ts';
import { packageRoot } from '../src/shared/package-root.ts';

// test/mutation-classified.yaml names the survivors of `npm run mutation` by the code they mutate (never by line or
// id). `npm run mutation` fails on an entry that names no survivor, but it is not run in CI: here every entry must
// still name a mutant StrykerJS makes of the code as it is now (its instrumenter, with the fault-code ignorer of
// stryker.config.json; no test is run), so an entry left behind by a change to the simulator fails at once.

const ROOT = packageRoot();
const silent = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
};

/** Every mutant StrykerJS would test, per file, as scripts/mutation-report.ts reads it (1-based lines and columns). */
async function mutantsNow(): Promise<{ file: string; mutant: Mutant; source: string }[]> {
  const files = (JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as { mutate: string[] }).mutate;
  const sources = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
  const ignorer = (await import(pathToFileURL(join(ROOT, 'scripts/stryker-fault-code.mjs')).href)) as {
    strykerPlugins: { value: Ignorer }[];
  };
  const result = await new Instrumenter(silent).instrument(
    files.map((name) => ({ name, content: sources.get(name) ?? '', mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: ignorer.strykerPlugins.map((p) => p.value) },
  );
  return result.mutants
    .filter((m) => m.status !== 'Ignored')
    .map((m) => ({
      file: m.fileName,
      source: sources.get(m.fileName) ?? '',
      mutant: {
        id: m.id,
        mutatorName: m.mutatorName,
        replacement: m.replacement,
        status: 'Pending',
        location: {
          start: { line: m.location.start.line + 1, column: m.location.start.column + 1 },
          end: { line: m.location.end.line + 1, column: m.location.end.column + 1 },
        },
      },
    }));
}

const label = (e: Entry): string =>
  `${e.file}: ${e.original ?? e.match ?? e.line ?? e.mutator} -> ${e.replacement ?? e.replacementMatch ?? ''}`;

describe('test/mutation-classified.yaml', () => {
  it('names, in every entry, a mutant StrykerJS makes of the simulator as it is now', async () => {
    const mutants = await mutantsNow();
    assert.ok(mutants.length > 500, `only ${mutants.length} mutants: is stryker.config.json's mutate list right?`);
    // What each mutant replaces and the line it starts on, as the report reads them.
    const seen = mutants.map(({ file, mutant, source }) => ({
      file,
      mutant,
      original: originalOf(source, mutant.location),
      line: source.split('\n')[mutant.location.start.line - 1] ?? '',
    }));
    const stale = classified().filter((e) => !seen.some((m) => names(e, m.file, m.mutant, m.original, m.line)));
    assert.deepEqual(stale.map(label), [], 'entries that name no mutant any more: take them out or name the new code');
  });
});

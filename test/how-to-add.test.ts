import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CHECKS } from '../src/checks/index.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import { CLAUSE_IDS } from '../src/openapi/types.ts';
import { buildCatalogue } from '../src/plan/catalogue/index.ts';
import { OPERATORS } from '../src/plan/generators/operators.ts';
import { SETTINGS } from '../src/shared/settings.ts';
import { ROOT } from './helpers.ts';

// ARCHITECTURE.md's "How to add" lists, held to the code: every clause, flag, probe metric and value class there
// is reaches every place its list names. A new one that misses a place fails here, by name and place.

const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');
const catalogue = buildCatalogue(loadApiModel());
const yaml = read('openapi.yaml');
const contractMd = read('docs/contract.md');
const checksTest = read('test/checks.test.ts');

/** The places of a clause's list that do not name it. */
function clauseMissing(id: string): string[] {
  const file = `src/checks/${id.toLowerCase()}.ts`;
  const places: [string, boolean][] = [
    ['CLAUSE_IDS', (CLAUSE_IDS as readonly string[]).includes(id)],
    [file, existsSync(join(ROOT, file))],
    ['CHECKS', id in CHECKS],
    ['x-contract-clauses', new RegExp(`^  ${id}:`, 'm').test(yaml)],
    ['x-clauses', new RegExp(`x-clauses: \\[[^\\]]*\\b${id}\\b`).test(yaml)],
    ['a scenario', catalogue.some((s) => (s.clauses as readonly string[]).includes(id))],
    ['docs/contract.md', contractMd.includes(id)],
    ['test/checks.test.ts', checksTest.includes(`'${id}'`)],
  ];
  return places.filter(([, ok]) => !ok).map(([place]) => place);
}

/** The places of a flag's list that do not name it. */
function flagMissing(flag: string, src: string, cliMd: string): string[] {
  return [
    ...(cliMd.includes(`--${flag}`) ? [] : ['docs/cli.md']),
    ...(src.includes(`'${flag}'`) ? [] : ['read by a command']),
  ];
}

describe('ARCHITECTURE.md: how to add', () => {
  it('every clause reaches its eight places; a clause that misses them is caught', () => {
    for (const id of CLAUSE_IDS) assert.deepEqual(clauseMissing(id), [], id);
    assert.equal(clauseMissing('INV-7').length, 8, 'a clause with none of its places misses all eight');
  });

  it('every flag is read by a command and written into docs/cli.md', () => {
    const cliMd = read('docs/cli.md');
    // Every source file but the table itself: a flag only the table names is read by no command.
    const src = filesUnder('src')
      .filter((f) => f !== join('src', 'shared', 'settings.ts'))
      .map(read)
      .join('\n');
    // --config is read by the table's own resolver (resolveSettings): the layer every other flag comes through.
    const missing = SETTINGS.filter((s) => s.flag !== 'config').flatMap((s) =>
      flagMissing(s.flag, src, cliMd).map((p) => `--${s.flag}: ${p}`),
    );
    assert.deepEqual(missing, []);
    assert.deepEqual(flagMissing('no-such-flag', src, cliMd), ['docs/cli.md', 'read by a command']);
  });

  it('every probe metric is in docs/probe.md', () => {
    const names = [...read('src/probe/metrics.ts').matchAll(/name: '(h2h_[a-z_]+)'/g)].map((m) => m[1] ?? '');
    assert.ok(names.length > 15, `${names.length} metrics`);
    const doc = read('docs/probe.md');
    for (const n of names) assert.ok(doc.includes(n), `${n} in docs/probe.md`);
  });

  it("every operator row is in docs/generated-cases.md's operators table", () => {
    const doc = read('docs/generated-cases.md');
    for (const op of OPERATORS) assert.match(doc, new RegExp(`^\\| ${op.name} \\|`, 'm'), op.name);
  });
});

/** The .ts files under a folder of the repository, its subfolders included. */
function filesUnder(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

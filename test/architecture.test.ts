import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers.ts';

// ARCHITECTURE.md is the rule: its table of rooms says which room may import which, and its glossary names
// the code's nouns. This test reads both and holds the code to them.

const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');

/** The rooms table: room path -> the rooms it may import (by short name). */
function rooms(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of doc.matchAll(/^\| `([^`]+)` \| [^|]+ \| ([^|]+) \|$/gm)) {
    const may = (m[2] ?? '').trim();
    out.set(m[1] ?? '', new Set(may === '—' ? [] : may.split(',').map((s) => s.trim())));
  }
  return out;
}

/** The short name of a room: `src/run/` -> run, `src/redact.ts` -> redact, `suites/` -> suites. */
const shortName = (room: string): string =>
  room
    .replace(/^src\//, '')
    .replace(/\/$/, '')
    .replace(/\.ts$/, '');

/** The room a file belongs to, or undefined for a file outside every room (tests, config). */
function roomOf(file: string, all: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const r of all) if ((file === r || file.startsWith(r)) && (!best || r.length > best.length)) best = r;
  return best;
}

/** Relative imports of a TypeScript file, resolved to paths from the project root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1] ?? '');
  return specs.map((s) => relative(ROOT, resolve(dirname(join(ROOT, file)), s)).replace(/\.js$/, '.ts'));
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const p = join(dir, name);
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every import that runs the wrong way: `from -> to (from's room may not import to's room)`. */
export function wrongWay(files: Map<string, string[]>, table: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [file, imports] of files) {
    const from = roomOf(file, table.keys());
    if (!from) continue;
    for (const target of imports) {
      const to = roomOf(target, table.keys());
      if (!to || to === from) continue;
      if (!table.get(from)?.has(shortName(to)))
        out.push(`${file} -> ${target} (${shortName(from)} may not import ${shortName(to)})`);
    }
  }
  return out;
}

/** Rooms that others import through one public surface only, their `index.ts`. */
const SURFACES = ['src/reading/'];

/** Every import from another room into a room of one surface that is not that surface. */
export function pastTheSurface(files: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, imports] of files)
    for (const target of imports) {
      const room = SURFACES.find((r) => target.startsWith(r));
      if (room && !file.startsWith(room) && target !== `${room}index.ts`) out.push(`${file} -> ${target}`);
    }
  return out;
}

describe('ARCHITECTURE.md holds', () => {
  const table = rooms();

  it('names every room of the code, each once', () => {
    assert.ok(table.size >= 12, `${table.size} rooms`);
    for (const dir of readdirSync(join(ROOT, 'src'))) {
      const room = statSync(join(ROOT, 'src', dir)).isDirectory() ? `src/${dir}/` : `src/${dir}`;
      assert.ok(table.has(room), `${room} is a room of ARCHITECTURE.md`);
    }
  });

  it('no folder of src/ holds over a quarter of its lines', () => {
    const lines = (files: string[]): number =>
      files.reduce((n, f) => n + readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1, 0);
    const total = lines(tsFiles('src'));
    const over = readdirSync(join(ROOT, 'src'))
      .filter((d) => statSync(join(ROOT, 'src', d)).isDirectory())
      .map((d) => [`src/${d}/`, lines(tsFiles(`src/${d}`))] as const)
      .filter(([, n]) => n > total / 4)
      .map(([d, n]) => `${d} ${n} of ${total} lines`);
    assert.ok(total > 10_000, `${total} lines`);
    assert.deepEqual(over, []);
  });

  it('no import runs the wrong way', () => {
    const files = new Map<string, string[]>();
    for (const f of [...tsFiles('src'), ...tsFiles('suites'), ...tsFiles('bench')]) files.set(f, importsOf(f));
    assert.ok(files.size > 80);
    assert.deepEqual(wrongWay(files, table), []);
  });

  it('other rooms import src/reading/ through its index.ts alone', () => {
    const files = new Map<string, string[]>();
    for (const f of [...tsFiles('src'), ...tsFiles('suites'), ...tsFiles('bench')]) files.set(f, importsOf(f));
    assert.deepEqual(pastTheSurface(files), []);
    assert.deepEqual(
      pastTheSurface(
        new Map([
          ['src/report/summary.ts', ['src/reading/index.ts', 'src/reading/learn-vocabulary.ts']],
          ['src/reading/learn-reading.ts', ['src/reading/learn-vocabulary.ts']],
        ]),
      ),
      ['src/report/summary.ts -> src/reading/learn-vocabulary.ts'],
    );
  });

  it('the rule catches an import that runs the wrong way (the probe importing the gate or the simulator)', () => {
    const files = new Map([
      ['src/probe/probe.ts', ['src/run/config.ts', 'src/simulator/faults/index.ts', 'src/checks/judge.ts']],
      ['src/openapi/model.ts', ['src/redact.ts']],
    ]);
    assert.deepEqual(wrongWay(files, table), [
      'src/probe/probe.ts -> src/run/config.ts (probe may not import run)',
      'src/probe/probe.ts -> src/simulator/faults/index.ts (probe may not import simulator)',
      'src/openapi/model.ts -> src/redact.ts (openapi may not import redact)',
    ]);
  });

  it('every noun of the glossary is defined once, and "check" means a clause check only', () => {
    const glossary = doc.slice(doc.indexOf('## Glossary'));
    const nouns = [...glossary.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1] ?? '');
    assert.ok(nouns.length > 30, `${nouns.length} nouns`);
    assert.deepEqual(
      nouns.filter((n, i) => nouns.indexOf(n) !== i),
      [],
      'a noun defined twice',
    );
    // The probe's own work is a round of probes; no name of the probe calls it a check.
    const probeNames = tsFiles('src/probe')
      .map((f) =>
        readFileSync(join(ROOT, f), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, '')
          .replace(/from '[^']*'/g, ''),
      )
      .flatMap((text) => [...text.matchAll(/\b(\w*[cC]heck\w*)\b/g)].map((m) => m[1]));
    assert.deepEqual(
      probeNames.filter((n) => !/^validate/.test(n ?? '')),
      [],
      'src/probe names a check',
    );
  });

  it('every type is named once in src/', () => {
    const declared = tsFiles('src').flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/^(?:export )?(?:interface|type|class) ([A-Za-z0-9_]+)/gm)].map(
        (m) => `${m[1]} (${f})`,
      ),
    );
    const name = (d: string): string => d.split(' ')[0] ?? '';
    assert.ok(declared.length > 50, `${declared.length} types`);
    assert.deepEqual(
      declared.filter((d) => declared.filter((e) => name(e) === name(d)).length > 1),
      [],
    );
  });

  it('every function is named once in src/ (module level: functions and arrow functions)', () => {
    const declared = tsFiles('src').flatMap((f) =>
      [
        ...readFileSync(join(ROOT, f), 'utf8').matchAll(
          /^(?:export )?(?:(?:async )?function\*? ([A-Za-z0-9_$]+)|const ([A-Za-z0-9_$]+) = (?:async )?(?:\([^)]*\)|[a-z]\w*) =>)/gm,
        ),
      ].map((m) => `${m[1] ?? m[2]} (${f})`),
    );
    const name = (d: string): string => d.split(' ')[0] ?? '';
    assert.ok(declared.length > 150, `${declared.length} functions`);
    assert.deepEqual(
      declared.filter((d) => declared.filter((e) => name(e) === name(d)).length > 1),
      [],
    );
  });

  it('every code name of the glossary is declared in the code', () => {
    const glossary = doc.slice(doc.indexOf('## Glossary'));
    // Code names have a capital somewhere (ApiModel, judgeClauses, CLAUSE_IDS); `ok`, `status`, `write` are words.
    const names = [...glossary.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)]
      .map((m) => m[1] ?? '')
      .filter((n) => /[A-Z]/.test(n));
    assert.ok(names.length > 40, `${names.length} names`);
    const code = [...tsFiles('src'), ...tsFiles('suites')].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    const declared = (name: string): boolean =>
      new RegExp(`export (default )?(const|function|class|interface|type|async function) ${name}\\b`).test(code);
    assert.deepEqual(
      [...new Set(names)].filter((n) => !declared(n)),
      [],
    );
  });
});

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMAND_NAMES, type CommandName, settingsOf } from '../src/shared/settings.ts';
import { CLAUSE_FAULTS } from '../src/simulator/faults/index.ts';
import { ROOT, words } from './helpers.ts';

// What README.md and docs/ tell a reader to run must run: every `h2h` command line in them names a command and
// only flags that command has (with a value where the flag takes one), every `npm run` script exists, and every
// relative link points at a file that is there.

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const text = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** Every `h2h COMMAND ...` in the code blocks and inline code of a page, with where it is. */
function commandLines(page: string): { where: string; argv: string[] }[] {
  const out: { where: string; argv: string[] }[] = [];
  const blocks = [...text(page).matchAll(/```(?:sh|bash|shell|console)?\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] ?? '').split('\n'),
  );
  const inline = [...text(page).matchAll(/`([^`\n]*\bh2h [a-z][^`\n]*)`/g)].map((m) => m[1] ?? '');
  for (const line of [...blocks, ...inline]) {
    const ws = words(line.trim());
    const at = ws.findIndex((w) => w === 'h2h' || w.endsWith('/main.js'));
    if (at < 0 || !COMMAND_NAMES.includes(ws[at + 1] as CommandName)) continue;
    out.push({ where: `${page}: ${line.trim()}`, argv: ws.slice(at + 1) });
  }
  return out;
}

describe('the commands and links of README.md and docs/', () => {
  it('every h2h command line names only flags its command has, each with a value where it takes one', () => {
    let checked = 0;
    for (const page of pages) {
      for (const { where, argv } of commandLines(page)) {
        const [command, ...rest] = argv as [CommandName, ...string[]];
        const rows = settingsOf(command);
        for (let i = 0; i < rest.length; i++) {
          const w = rest[i] ?? '';
          if (!w.startsWith('--') || w === '--help' || w === '--debug') continue;
          const name = w.slice(2).split('=')[0] ?? '';
          const row = rows.find((s) => s.flag === name || s.deprecated?.flags?.includes(name));
          assert.ok(row, `${where}: h2h ${command} has no flag --${name}`);
          if (row.type !== 'boolean' && !w.includes('=')) {
            const value = rest[i + 1];
            assert.ok(value !== undefined && !value.startsWith('--'), `${where}: --${name} needs a value`);
            i++;
          }
        }
        checked++;
      }
    }
    assert.ok(checked >= 20, `${checked} command lines checked`);
  });

  it('every npm script the pages name exists in package.json', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts,
    );
    for (const page of pages)
      for (const m of text(page).matchAll(/npm run ([a-z][\w:-]*)/g))
        assert.ok(scripts.includes(m[1] ?? ''), `${page}: npm run ${m[1]}`);
  });

  it('every relative link points at a file that exists', () => {
    let links = 0;
    for (const page of pages)
      for (const m of text(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        assert.ok(existsSync(join(ROOT, dirname(page), target)), `${page}: link to ${target}`);
      }
    assert.ok(links >= 10, `${links} links checked`);
  });
});

describe('docs/simulator.md', () => {
  it('has a row for every contract fault of src/simulator/faults/, with its clause and its also list', () => {
    const rows = new Map(
      [...text('docs/simulator.md').matchAll(/^\| `([a-z0-9-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]?.trim()]),
    );
    const missing: string[] = [];
    for (const f of CLAUSE_FAULTS) {
      const want = [f.clause, ...(f.also ?? [])].join(', ');
      if (rows.get(f.name) !== want)
        missing.push(`${f.name}: ${want} (the page says ${rows.get(f.name) ?? 'nothing'})`);
    }
    assert.deepEqual(missing, []);
  });
});

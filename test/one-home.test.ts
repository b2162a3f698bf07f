import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers.ts';

// Issue 41, Build 3: one home per rule. Each rule below is written in one file of src/; a copy of it anywhere else
// (a list spelt out again, a form classified again, a default or an exit code outside its table) fails here, with
// the file and line of the copy.

const files = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join('src', f));
const text = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

/** Every line of src/ outside `home` that matches `pattern`, as `file:line`. */
function copies(pattern: RegExp, home: string, within = 'src/'): string[] {
  const out: string[] = [];
  for (const [file, src] of text) {
    if (file === home || file.startsWith(BREACHES) || !file.startsWith(within)) continue;
    for (const [i, line] of src.split('\n').entries()) if (pattern.test(line)) out.push(`${file}:${i + 1}`);
  }
  return out;
}

const ENDPOINT = "'(?:invite-member|history-transaksi|cek-trx-id|saldo-user)'";

/** Where rules are broken on purpose: the simulator's faults are a provider's bugs, written as such. */
const BREACHES = 'src/simulator/faults/';

const RULES: { rule: string; home: string; holds: RegExp; copy: RegExp; within?: string }[] = [
  {
    rule: 'the endpoints, as a list',
    home: 'src/openapi/types.ts',
    holds: /export const ENDPOINTS = \[/,
    copy: new RegExp(`\\[${ENDPOINT}, ${ENDPOINT}`),
  },
  {
    rule: "a record's documented fields",
    home: 'src/openapi/exchange.ts',
    holds: /RECORD_FIELDS = \['trx_id', 'manager_number', 'member_number', 'date'\]/,
    copy: /'trx_id', 'manager_number', 'member_number', 'date'/,
  },
  {
    rule: "a number's form (08, 62, +62)",
    home: 'src/openapi/numbers.ts',
    holds: /export function numberForm/,
    copy: /startsWith\('(?:08|62|\+62)'\)/,
  },
  {
    rule: 'digits of other scripts',
    home: 'src/plan/generators/roles.ts',
    holds: /export const DIGIT_SCRIPTS/,
    copy: /0x0660|0xff10|[\u0660-\u0669\uff10-\uff19]/,
  },
  {
    rule: 'a wrong key',
    home: 'src/plan/sampling.ts',
    holds: /export const WRONG_KEY = 'h2h-wrong-key/,
    copy: /h2h-wrong-key/,
  },
  {
    rule: 'an exit code (the EXIT table)',
    home: 'src/shared/exit.ts',
    holds: /export const EXIT = \{ OK: 0, VIOLATED: 1, USAGE: 2, INTERNAL: 3, INCONCLUSIVE: 4 \}/,
    copy: /^\s*return [0-4];|process\.exitCode = [0-4];/,
    // A command's run returns its exit code.
    within: 'src/cli/',
  },
  {
    rule: "a request's timeout and body cap (the settings table's defaults)",
    home: 'src/shared/settings.ts',
    holds: /default: '10s'/,
    copy: /(?:timeoutMs|bodyCap): [^,]*\?\? \d/,
  },
];

describe('one home per rule', () => {
  for (const { rule, home, holds, copy, within } of RULES)
    it(`${rule}: in ${home} alone`, () => {
      assert.match(text.get(home) ?? '', holds, `${home} holds it`);
      assert.deepEqual(copies(copy, home, within), []);
    });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { diffFiles } from '../src/cli/diff.ts';
import { problemLine, toolkitProblems } from '../src/cli/lint.ts';
import { offRulesExplained } from '../src/docs/config-rules.ts';
import { assumptions } from '../src/docs/enrich.ts';
import { DEFAULT_DOCUMENT_PATH, loadApiModel } from '../src/openapi/load.ts';
import { CLAUSE_IDS } from '../src/openapi/types.ts';
import { runCli } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'h2h-docs-'));
const original = readFileSync(DEFAULT_DOCUMENT_PATH, 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: the tests edit arbitrary YAML trees
type Doc = Record<string, any>;
let n = 0;
/** A copy of openapi.yaml changed by `edit`, written to a temp file. */
function variant(edit: (d: Doc) => void): string {
  const d = parse(original) as Doc;
  edit(d);
  const p = join(tmp, `v${++n}.yaml`);
  writeFileSync(p, stringify(d));
  return p;
}
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('h2h docs', () => {
  it('writes index.html and API.md, byte for byte the same from an unchanged document', async () => {
    const a = join(tmp, 'docs-a');
    const b = join(tmp, 'docs-b');
    for (const out of [a, b]) {
      const r = await runCli(['docs', '--out', out]);
      assert.equal(r.code, 0, r.stderr);
    }
    assert.equal(sha(join(a, 'index.html')), sha(join(b, 'index.html')));
    assert.equal(sha(join(a, 'API.md')), sha(join(b, 'API.md')));
    const html = readFileSync(join(a, 'index.html'), 'utf8');
    assert.ok(!/<script[^>]+src="https?:/.test(html), 'no script from the network: the bundle is inlined');
  });

  it('exits 2 with a clear message when --out cannot be written', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    const r = await runCli(['docs', '--out', join(file, 'docs')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--out .*a-file\/docs: cannot write there \(ENOTDIR\)/);
  });

  it('API.md holds every endpoint, both methods, every alias, every clause and every assumption', async () => {
    const out = join(tmp, 'docs-md');
    await runCli(['docs', '--out', out]);
    const md = readFileSync(join(out, 'API.md'), 'utf8');
    const api = loadApiModel();
    for (const op of api.operations.values()) {
      assert.ok(md.includes(`\`GET | POST ${op.path}\``), op.path);
      for (const p of op.params) for (const a of p.aliases) assert.ok(md.includes(`\`${a}\``), `alias ${a}`);
    }
    for (const id of CLAUSE_IDS) assert.match(md, new RegExp(`^\\| ${id} \\|`, 'm'), id);
    for (const a of assumptions(api.doc)) assert.ok(md.includes(a.text), `assumption ${a.at}`);
    assert.match(md, /^## Contract clauses$/m);
    assert.match(md, /^## Assumptions$/m);
  });
});

describe('h2h lint', () => {
  it('passes openapi.yaml: Redocly with its committed config, and the toolkit rules', async () => {
    const r = await runCli(['lint']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /redocly lint: no errors/);
    assert.match(r.stdout, /toolkit rules: no problems/);
  });

  const broken: [string, (d: Doc) => void, RegExp][] = [
    [
      'a path without POST',
      (d) => delete d.paths['/api/saldo-user'].post,
      /FAIL both-methods \/api\/saldo-user: \/api\/saldo-user has no POST/,
    ],
    [
      'GET and POST aliases that differ',
      (d) => (d.components.schemas.InviteRequest.properties.msisdn['x-aliases'] = ['number']),
      /FAIL both-methods \/api\/invite-member POST: msisdn: GET aliases \[nomor, number\] differ from POST aliases \[number\]/,
    ],
    [
      'an alias used twice',
      (d) => (d.components.parameters.Name['x-aliases'] = ['nama', 'nomor']),
      /FAIL unique-aliases \/api\/invite-member: nomor names both msisdn and name/,
    ],
    [
      'a clause on no operation',
      (d) => {
        for (const item of Object.values(d.paths) as Doc[])
          for (const m of ['get', 'post'])
            item[m]['x-clauses'] = item[m]['x-clauses'].filter((c: string) => c !== 'HIS-4');
      },
      /FAIL clauses-attached paths: clause HIS-4 is attached to no operation/,
    ],
    [
      'an example that breaks its schema',
      (d) => (d.components.schemas.SaldoResult.examples[0].saldo = 'lots'),
      /FAIL examples-valid components\.schemas\.SaldoResult examples\[0\]: example does not validate: \$\.saldo must be number/,
    ],
    [
      'an invalid document for Redocly',
      (d) => (d.paths['/api/saldo-user'].get.responses = 'none'),
      /redocly lint: ERRORS/,
    ],
  ];
  // Through the CLI for Redocly's own failure and one of the toolkit's rules (the exit code, the lines as printed);
  // the toolkit's other rules in process, printed by the same function.
  for (const [label, edit, message] of broken.filter(([label]) => /Redocly|without POST/.test(label))) {
    it(`exits 1 with the exact message on ${label}`, async () => {
      const r = await runCli(['lint', variant(edit)]);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, message);
    });
  }
  for (const [label, edit, message] of broken.filter(([label]) => !/Redocly/.test(label))) {
    it(`the toolkit's rules find ${label}, in the exact words`, () => {
      const lines = toolkitProblems(variant(edit)).map(problemLine);
      assert.ok(
        lines.some((l) => message.test(l)),
        `${message} in ${JSON.stringify(lines)}`,
      );
    });
  }

  it('exits 2 on a missing file', async () => {
    const r = await runCli(['lint', join(tmp, 'nope.yaml')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nope\.yaml: no such file/);
  });

  it('a rule switched off in redocly.yaml must say why', () => {
    assert.deepEqual(offRulesExplained(readFileSync(join(DEFAULT_DOCUMENT_PATH, '..', 'redocly.yaml'), 'utf8')), []);
    const bad = offRulesExplained('rules:\n  # keep\n  a-rule: off\n  b-rule: off\n');
    assert.deepEqual(
      bad.map((p) => [p.at, p.message]),
      [['redocly.yaml:4', 'rule b-rule is switched off without a comment saying why']],
    );
    const inline = offRulesExplained(
      'extends: [recommended]\nrules:\n  a-rule: off # why\n  b-rule: warn\n  c-rule: off\n',
    );
    assert.deepEqual(
      inline.map((p) => p.at),
      ['redocly.yaml:5'],
    );
  });
});

describe('h2h diff', () => {
  const both = (d: Doc, param: string, bodyProp: string, schemaName: string, edit: (p: Doc, b: Doc) => void): void => {
    edit(d.components.parameters[param], d.components.schemas[schemaName].properties[bodyProp]);
  };
  const cases: { label: string; edit: (d: Doc) => void; breaking: RegExp[]; safe: RegExp[] }[] = [
    {
      label: 'a removed endpoint',
      edit: (d) => delete d.paths['/api/cek-trx-id'],
      breaking: [/^\/api\/cek-trx-id: endpoint removed$/],
      safe: [],
    },
    {
      label: 'a removed method',
      edit: (d) => delete d.paths['/api/saldo-user'].post,
      breaking: [/^POST \/api\/saldo-user: method removed$/],
      safe: [],
    },
    {
      label: 'a removed parameter',
      edit: (d) => {
        for (const m of ['get'])
          d.paths['/api/invite-member'][m].parameters = d.paths['/api/invite-member'][m].parameters.filter(
            (p: Doc) => p.$ref !== '#/components/parameters/Name',
          );
        delete d.components.schemas.InviteRequest.properties.name;
      },
      breaking: [
        /^GET \/api\/invite-member: parameter name removed$/,
        /^POST \/api\/invite-member: parameter name removed$/,
      ],
      safe: [],
    },
    {
      label: 'a removed alias',
      edit: (d) =>
        both(d, 'Msisdn', 'msisdn', 'InviteRequest', (p, b) => {
          p['x-aliases'] = ['number'];
          b['x-aliases'] = ['number'];
        }),
      breaking: [
        /^GET \/api\/invite-member: alias nomor of msisdn removed$/,
        /^POST \/api\/invite-member: alias nomor of msisdn removed$/,
      ],
      safe: [],
    },
    {
      label: 'a parameter made required',
      edit: (d) => {
        d.components.parameters.Name.required = true;
        d.components.schemas.InviteRequest.required.push('name');
      },
      breaking: [
        /^GET \/api\/invite-member: parameter name made required$/,
        /^POST \/api\/invite-member: parameter name made required$/,
      ],
      safe: [],
    },
    {
      label: 'a removed response field',
      edit: (d) => delete d.components.schemas.InviteDetail.properties.slot,
      breaking: [/^GET \/api\/invite-member: response field \$\.detail\.slot removed$/],
      safe: [],
    },
    {
      label: 'a response field type changed',
      edit: (d) => (d.components.schemas.SaldoResult.allOf[1].properties.saldo.type = 'string'),
      breaking: [/^GET \/api\/saldo-user: response field \$\.saldo type changed from number to string$/],
      safe: [],
    },
    {
      label: 'an enum narrowed',
      edit: (d) => (d.components.schemas.Kind.enum = ['akrab']),
      breaking: [/^GET \/api\/invite-member: parameter kind enum narrowed: circle no longer accepted$/],
      safe: [],
    },
    {
      label: 'a required parameter added',
      edit: (d) => {
        d.components.schemas.SaldoUserRequest.properties.pin = { type: 'string' };
        d.components.schemas.SaldoUserRequest.required.push('pin');
      },
      breaking: [/^POST \/api\/saldo-user: parameter pin added as required$/],
      safe: [],
    },
    {
      // Required but not defined (h2h lint's required-defined): still a name every request must now carry.
      label: 'a required parameter added that the schema does not define',
      edit: (d) => d.components.schemas.SaldoUserRequest.required.push('pin'),
      breaking: [
        /^POST \/api\/saldo-user: parameter pin added as required \(not defined in properties: its type unknown\)$/,
      ],
      safe: [],
    },
    {
      label: 'a required parameter added, not defined, in a body composed with allOf',
      edit: (d) => {
        const body = d.components.schemas.SaldoUserRequest;
        d.components.schemas.SaldoUserRequest = {
          description: body.description,
          allOf: [
            { type: 'object', required: body.required, properties: body.properties },
            { type: 'object', required: ['pin'] },
          ],
        };
      },
      breaking: [
        /^POST \/api\/saldo-user: parameter pin added as required \(not defined in properties: its type unknown\)$/,
      ],
      safe: [],
    },
    {
      // In an answer, a name every success carries is an addition: safe, but reported (it was "0 breaking, 0 safe").
      label: 'a required response field added that the schema does not define',
      edit: (d) => d.components.schemas.SaldoResult.allOf[1].required.push('currency'),
      breaking: [],
      safe: [
        /^GET \/api\/saldo-user: response field \$\.currency added, always present \(not defined in properties: its type unknown\)$/,
        /^POST \/api\/saldo-user: response field \$\.currency added, always present/,
      ],
    },
    {
      label: 'a required nested response field added that the schema does not define',
      edit: (d) => d.components.schemas.InviteDetail.required.push('expires'),
      breaking: [],
      safe: [/^GET \/api\/invite-member: response field \$\.detail\.expires added, always present/],
    },
    {
      label: 'an added endpoint',
      edit: (d) => (d.paths['/api/cek-produk'] = d.paths['/api/saldo-user']),
      breaking: [],
      safe: [/^\/api\/cek-produk: endpoint added$/],
    },
    {
      label: 'an added alias',
      edit: (d) =>
        both(d, 'Msisdn', 'msisdn', 'InviteRequest', (p, b) => {
          p['x-aliases'].push('hp');
          b['x-aliases'].push('hp');
        }),
      breaking: [],
      safe: [/^GET \/api\/invite-member: alias hp of msisdn added$/],
    },
    {
      label: 'an added optional parameter',
      edit: (d) => (d.components.schemas.HistoryRequest.properties.product = { type: 'string' }),
      breaking: [],
      safe: [/^POST \/api\/history-transaksi: parameter product added \(optional\)$/],
    },
    {
      label: 'an added response field',
      edit: (d) => (d.components.schemas.SaldoResult.allOf[1].properties.currency = { type: 'string' }),
      breaking: [],
      safe: [/^GET \/api\/saldo-user: response field \$\.currency added$/],
    },
    {
      label: 'an enum widened',
      edit: (d) => d.components.schemas.Kind.enum.push('family'),
      breaking: [],
      safe: [/^GET \/api\/invite-member: parameter kind enum widened: family accepted$/],
    },
    {
      label: 'a parameter made optional',
      edit: (d) => {
        d.components.parameters.ProductCode.required = false;
        d.components.schemas.InviteRequest.required = d.components.schemas.InviteRequest.required.filter(
          (x: string) => x !== 'product_code',
        );
      },
      breaking: [],
      safe: [/^GET \/api\/invite-member: parameter product_code made optional$/],
    },
    {
      label: 'a parameter type changed',
      edit: (d) => (d.components.schemas.Limit.type = 'string'),
      breaking: [/^GET \/api\/history-transaksi: parameter limit type changed from integer to string$/],
      safe: [],
    },
    {
      label: 'a parameter restricted to an enum',
      edit: (d) => (d.components.schemas.ProductCode.enum = ['AKRAB-10GB']),
      breaking: [/^GET \/api\/invite-member: parameter product_code restricted to AKRAB-10GB$/],
      safe: [],
    },
    {
      label: 'a pattern narrowed',
      edit: (d) => (d.components.schemas.Msisdn.pattern = '^(08)[0-9]{7,12}$'),
      breaking: [/^GET \/api\/invite-member: parameter msisdn pattern changed to \^\(08\)/],
      safe: [],
    },
    {
      label: 'a pattern widened (not breaking)',
      edit: (d) => (d.components.schemas.Msisdn.pattern = '^(08|62|07)[0-9]{7,14}$'),
      breaking: [],
      safe: [/^GET \/api\/invite-member: parameter msisdn pattern widened to/],
    },
    {
      label: 'a maxLength lowered',
      edit: (d) => (d.components.schemas.MemberName.maxLength = 20),
      breaking: [/^GET \/api\/invite-member: parameter name maxLength tightened to 20$/],
      safe: [],
    },
    {
      label: 'a minimum raised',
      edit: (d) => (d.components.schemas.Limit.minimum = 5),
      breaking: [/^GET \/api\/history-transaksi: parameter limit minimum tightened to 5$/],
      safe: [],
    },
    {
      label: 'a minimum lowered (not breaking)',
      edit: (d) => (d.components.schemas.Limit.minimum = 0),
      breaking: [],
      safe: [/^GET \/api\/history-transaksi: parameter limit minimum loosened to 0$/],
    },
    {
      label: 'a response field made optional',
      edit: (d) => {
        d.components.schemas.InviteDetail.required = d.components.schemas.InviteDetail.required.filter(
          (x: string) => x !== 'slot',
        );
      },
      breaking: [/^GET \/api\/invite-member: response field \$\.detail\.slot no longer always present$/],
      safe: [],
    },
    {
      label: 'a description edited',
      edit: (d) => (d.paths['/api/saldo-user'].get.description = 'Reads the balance.'),
      breaking: [],
      safe: [],
    },
  ];

  it('classifies a response field given new values as breaking, and fewer values as safe', async () => {
    const slots = (values: string[]) =>
      variant((d) => (d.components.schemas.InviteDetail.properties.slot.enum = values));
    const [one, two] = [slots(['1']), slots(['1', '2'])];
    const more = diffFiles(one, two);
    assert.deepEqual(
      more.breaking.map((c) => c.what),
      ['response field $.detail.slot may now carry 2', 'response field $.detail.slot may now carry 2'],
    );
    const fewer = diffFiles(two, one);
    assert.deepEqual(fewer.breaking, []);
    assert.match(fewer.safe[0]?.what ?? '', /response field \$\.detail\.slot enum narrowed: 2 no longer sent/);
  });

  // Through the CLI: --json prints what diffFiles finds, exit 1 with a breaking change, 0 with safe ones only.
  it('prints the changes as JSON with --json, and exits 1 on a breaking change, 0 on safe ones only', async () => {
    let ran = 0;
    for (const c of cases.filter((x) => /^(a removed parameter|an added optional parameter)$/.test(x.label))) {
      const file = variant(c.edit);
      const r = await runCli(['diff', DEFAULT_DOCUMENT_PATH, file, '--json']);
      assert.deepEqual(JSON.parse(r.stdout), diffFiles(DEFAULT_DOCUMENT_PATH, file), c.label);
      assert.equal(r.code, c.breaking.length ? 1 : 0, c.label);
      ran++;
    }
    assert.equal(ran, 2);
  });

  for (const c of cases) {
    it(`classifies ${c.label}`, () => {
      const out = diffFiles(DEFAULT_DOCUMENT_PATH, variant(c.edit));
      const lines = (xs: { at: string; what: string }[]): string[] => xs.map((x) => `${x.at}: ${x.what}`);
      for (const re of c.breaking)
        assert.ok(
          lines(out.breaking).some((l) => re.test(l)),
          `${re} in ${JSON.stringify(lines(out.breaking))}`,
        );
      for (const re of c.safe)
        assert.ok(
          lines(out.safe).some((l) => re.test(l)),
          `${re} in ${JSON.stringify(lines(out.safe))}`,
        );
      if (c.breaking.length === 0) assert.deepEqual(out.breaking, [], 'nothing breaking');
      if (c.breaking.length === 0 && c.safe.length === 0) assert.deepEqual(out.safe, []);
    });
  }

  it('exits 2 on a missing file or a file that is not an OpenAPI document', async () => {
    const missing = await runCli(['diff', DEFAULT_DOCUMENT_PATH, join(tmp, 'nope.yaml')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.yaml: no such file/);
    const p = join(tmp, 'not.yaml');
    writeFileSync(p, 'hello: world\n');
    const notDoc = await runCli(['diff', p, DEFAULT_DOCUMENT_PATH]);
    assert.equal(notDoc.code, 2);
    assert.match(notDoc.stderr, /not\.yaml is not an OpenAPI 3 document/);
  });
});

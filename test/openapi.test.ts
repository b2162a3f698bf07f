import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { lintDocument } from '../src/docs/rules.ts';
import { ApiModel, apiModelFromText, DEFAULT_DOCUMENT_PATH, loadApiModel } from '../src/openapi/load.ts';
import type { Precompiled } from '../src/openapi/model.ts';
import { CLAUSE_IDS, ENDPOINTS } from '../src/openapi/types.ts';
import { ROOT } from './helpers.ts';

const api = loadApiModel();
const text = readFileSync(DEFAULT_DOCUMENT_PATH, 'utf8');

describe('openapi.yaml', () => {
  it('holds the four endpoints, each with GET and POST', () => {
    assert.deepEqual([...api.operations.keys()].sort(), [...ENDPOINTS].sort());
    for (const op of api.operations.values()) {
      assert.ok(op.operations.GET.operationId && op.operations.POST.operationId, op.path);
    }
  });

  it('names every alias of the provider description as x-aliases, and in the description', () => {
    const want: Record<string, Record<string, string[]>> = {
      'invite-member': {
        api_key: ['key'],
        trx_id: ['trxid'],
        product_code: ['produk', 'code'],
        msisdn: ['number', 'nomor'],
        name: ['nama'],
        kind: ['type'],
      },
      'history-transaksi': {
        api_key: ['key'],
        limit: [],
        q: ['search', 'nomor'],
        date: ['tanggal'],
        month: ['bulan'],
        year: ['tahun'],
      },
      'cek-trx-id': { api_key: ['key'], trx_id: ['trxid'] },
      'saldo-user': { api_key: ['key'] },
    };
    for (const [endpoint, params] of Object.entries(want)) {
      const info = api.operation(endpoint as (typeof ENDPOINTS)[number]);
      assert.deepEqual(Object.fromEntries(info.params.map((p) => [p.name, p.aliases])), params, endpoint);
      for (const p of info.params)
        for (const a of p.aliases) assert.match(p.description, new RegExp(`\`${a}\``), `${endpoint} ${p.name}`);
    }
  });

  it('attaches every clause id to an operation', () => {
    const attached = new Set([...api.operations.values()].flatMap((o) => o.clauses));
    assert.deepEqual(
      CLAUSE_IDS.filter((id) => !attached.has(id)),
      [],
    );
  });

  const clausesFile = join(ROOT, '..', 'shared', 'api', 'contract-clauses.md');
  it('lists the clause ids of ../shared/api/contract-clauses.md, in its order', {
    skip: existsSync(clausesFile) ? false : `${clausesFile} is not beside this checkout`,
  }, () => {
    const ids = [...readFileSync(clausesFile, 'utf8').matchAll(/^- ([A-Z]+-\d+) /gm)].map((m) => m[1]);
    assert.deepEqual(ids, [...CLAUSE_IDS]);
  });

  it('marks each position taken where the provider says "not shown" with x-assumption, where it applies', () => {
    const doc = api.doc as unknown as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const assumption = (node: unknown): string =>
      String((node as Record<string, unknown> | undefined)?.['x-assumption'] ?? '');
    const params = doc.components?.parameters ?? {};
    const schemas = doc.components?.schemas ?? {};
    const cases: [string, unknown, RegExp][] = [
      ['the limit parameter: its default and maximum', params.Limit, /default and maximum/i],
      ['the key: a missing or wrong one', params.ApiKey, /missing, empty or wrong key/i],
      ['a refusal: its body and HTTP status', schemas.Refusal, /HTTP status/],
      ['a transaction ID: its length, and that it is used once', schemas.TrxId, /length/i],
      ['the kind of a product', params.Kind, /kind that does not match the product/i],
      ['the currency of saldo', api.operation('saldo-user').operations.GET, /currency/i],
      ['a repeated trx_id', api.operation('invite-member').operations.POST, /trx_id can be used once/i],
      ['the order of history', api.operation('history-transaksi').operations.GET, /order of records/i],
      ['versioning', doc.info, /Versioning is not shown/],
    ];
    for (const [what, node, topic] of cases) assert.match(assumption(node), topic, what);
    assert.ok((text.match(/x-assumption:/g) ?? []).length >= 15);
  });

  it('keeps every toolkit lint rule, every example validating against its own schema', () => {
    assert.deepEqual(lintDocument(api.doc), []);
  });

  it('the example rule finds a broken example', () => {
    const broken = apiModelFromText(
      text.replace('saldo: 150000\n            wrongKey', "saldo: '150000'\n            wrongKey"),
      'broken.yaml',
    );
    const problems = lintDocument(broken.doc);
    // The response component is shared by GET and POST, so the one broken example is found on both.
    assert.deepEqual(
      problems.map((p) => [p.rule, p.at]),
      [
        ['examples-valid', '/api/saldo-user GET response 200 examples.success'],
        ['examples-valid', '/api/saldo-user POST response 200 examples.success'],
      ],
    );
    assert.match(problems[0]?.message ?? '', /\$\.saldo must be number/);
  });

  it('redocly lint reports no errors', () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', 'openapi.yaml'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /Your API description is valid/);
  });
});

describe('request folding', () => {
  it('folds aliases into canonical names', () => {
    const f = api.foldRequest('invite-member', {
      key: 'k',
      trxid: 't',
      code: 'P',
      nomor: '081234567890',
      type: 'akrab',
      nama: 'x',
    });
    assert.deepEqual(f.problems, []);
    assert.deepEqual(f.params, {
      api_key: 'k',
      trx_id: 't',
      product_code: 'P',
      msisdn: '081234567890',
      name: 'x',
      kind: 'akrab',
    });
    assert.deepEqual(f.sentAs.msisdn, ['nomor']);
  });

  it('refuses two aliases of one parameter with different values, and accepts equal ones', () => {
    assert.deepEqual(api.foldRequest('saldo-user', { api_key: 'a', key: 'a' }).problems, []);
    const f = api.foldRequest('history-transaksi', { api_key: 'a', search: 'x', nomor: 'y' });
    assert.deepEqual(
      f.problems.map((p) => [p.param, p.code]),
      [['q', 'conflict']],
    );
  });

  it('names missing and invalid parameters', () => {
    const f = api.foldRequest('invite-member', { api_key: 'a', msisdn: '0812', kind: 'family' });
    const got = Object.fromEntries(f.problems.map((p) => [p.param, p.code]));
    assert.deepEqual(got, { trx_id: 'missing', product_code: 'missing', msisdn: 'invalid', kind: 'invalid' });
    const h = api.foldRequest('history-transaksi', {
      api_key: 'a',
      limit: '0',
      date: '2026-02-30',
      month: '13',
      year: '26',
    });
    assert.deepEqual(h.problems.map((p) => p.param).sort(), ['date', 'limit', 'month', 'year']);
  });

  it('reads GET strings as the schema types', () => {
    assert.equal(api.foldRequest('history-transaksi', { api_key: 'a', limit: '7' }).params.limit, 7);
  });
});

describe('drift', () => {
  it('lists fields and status values the document does not name, once per path', () => {
    const drift = api.drift('history-transaksi', {
      ok: true,
      status: 'SUCCESS',
      server_time: 'x',
      data: [
        { trx_id: 'a', manager_number: '1', member_number: '2', date: '2026-01-01', product: 'P' },
        { trx_id: 'b', manager_number: '1', member_number: '2', date: '2026-01-01', product: 'Q' },
      ],
    });
    assert.deepEqual(drift.map((d) => d.path).sort(), ['$.data[].product', '$.server_time']);
    // The provider documents no refusal status: drift only against the list a team gives.
    assert.deepEqual(api.drift('saldo-user', { ok: false, status: 'GAGAL' }), []);
    const known = { knownStatuses: ['INVALID_API_KEY'], knownHttpStatuses: [401] };
    assert.deepEqual(api.drift('saldo-user', { ok: false, status: 'GAGAL' }, { ...known, httpStatus: 400 }), [
      { endpoint: 'saldo-user', kind: 'status', path: '$.status', value: 'GAGAL' },
      { endpoint: 'saldo-user', kind: 'http', path: 'HTTP status', value: '400' },
    ]);
    assert.deepEqual(
      api.drift('saldo-user', { ok: false, status: 'INVALID_API_KEY', message: 'x' }, { ...known, httpStatus: 401 }),
      [],
    );
    // A transaction state the document does not name is drift, unless the team lists it.
    const pending = { ok: true, status: 'SUCCESS', data: { trx_id: 'T', status: 'PENDING' } };
    assert.equal(api.drift('cek-trx-id', pending).length, 1);
    assert.deepEqual(api.drift('cek-trx-id', pending, { knownStatuses: ['PENDING'] }), []);
  });
});

describe("the build's parse of openapi.yaml (dist/openapi.json)", () => {
  const built = join(ROOT, 'dist', 'openapi.json');
  it('is the document the YAML gives, for the text it was made from', {
    skip: !existsSync(built) && 'no build: npm run build writes it',
  }, () => {
    const text = readFileSync(DEFAULT_DOCUMENT_PATH, 'utf8');
    const { sha256, document } = JSON.parse(readFileSync(built, 'utf8')) as { sha256: string; document: unknown };
    assert.equal(sha256, createHash('sha256').update(text).digest('hex'), 'made from openapi.yaml as it is now');
    assert.deepEqual(document, parse(text));
    assert.deepEqual(apiModelFromText(text, 'a copy').doc, parse(text));
    // A text with one byte changed is parsed, not taken from the build.
    const changed = text.replace('title: ', 'title: Changed ');
    assert.notEqual(changed, text);
    assert.deepEqual(apiModelFromText(changed, 'a changed copy').doc, parse(changed));
    assert.throws(() => apiModelFromText(`${text}\n  : [`, 'a broken copy'), /a broken copy is not valid YAML/);
  });
});

/** Every example value the document holds (request bodies, answers), found wherever `examples` or `example` is. */
function exampleValues(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const v of node) exampleValues(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'examples' && v && typeof v === 'object' && !Array.isArray(v))
        for (const ex of Object.values(v)) out.push((ex as { value?: unknown }).value);
      else if (k === 'example') out.push(v);
      else exampleValues(v, out);
    }
  }
  return out;
}

/** A value and its near misses: each field dropped, each field made null, a number, a string, an array, an object. */
function nearMisses(value: unknown): unknown[] {
  const out: unknown[] = [value];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const key of Object.keys(value)) {
    const { [key]: dropped, ...rest } = value as Record<string, unknown>;
    out.push(rest);
    for (const other of [null, 7, '7', [], {}]) out.push({ ...rest, [key]: other });
    if (dropped && typeof dropped === 'object' && !Array.isArray(dropped))
      for (const inner of nearMisses(dropped).slice(1)) out.push({ ...rest, [key]: inner });
  }
  return out;
}

describe("the build's validators of openapi.yaml (dist/openapi-validators.cjs)", () => {
  const built = join(ROOT, 'dist', 'openapi-validators.cjs');
  it('answer every example and its near misses as ajv compiling the document now does, errors included', {
    skip: !existsSync(built) && 'no build: npm run build writes it',
  }, () => {
    const mod = createRequire(import.meta.url)(built) as Precompiled & { sha256: string };
    assert.equal(mod.sha256, createHash('sha256').update(text).digest('hex'), 'made from openapi.yaml as it is now');
    const compiled = new ApiModel(parse(text), 'compiled now');
    const values = exampleValues(parse(text)).flatMap(nearMisses);
    assert.ok(values.length > 200, `${values.length} values`);
    let compared = 0;
    for (const [mode, names] of Object.entries(compiled.validatorComponents()) as [keyof Precompiled, string[]][])
      for (const name of names) {
        const ahead = mod[mode][name];
        assert.ok(ahead, `${mode} ${name} is in the build's validators`);
        const now = compiled.validator(mode, name);
        for (const value of values) {
          // The request validators coerce in place: each side gets its own copy.
          const [a, b] = [structuredClone(value), structuredClone(value)];
          assert.equal(ahead(a), now(b), `${mode} ${name}: ${JSON.stringify(value)}`);
          assert.deepEqual(ahead.errors ?? null, now.errors ?? null, `${mode} ${name}: ${JSON.stringify(value)}`);
          assert.deepEqual(a, b);
          compared++;
        }
      }
    assert.ok(compared > 2000, `${compared} comparisons`);
    // The model loaded from openapi.yaml takes them; one byte changed, ajv compiles the copy's own.
    assert.equal(loadApiModel().validator('response', 'Envelope'), mod.response.Envelope);
    const changed = apiModelFromText(text.replace('title: ', 'title: Changed '), 'a changed copy');
    assert.notEqual(changed.validator('response', 'Envelope'), mod.response.Envelope);
    assert.deepEqual(changed.envelopeErrors({ ok: 'yes' }), loadApiModel().envelopeErrors({ ok: 'yes' }));
  });
});

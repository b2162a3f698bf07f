// Issue 26, build 8: docs a reader can use. The reference is built by the shipped CLI (dist/) and read as a reader
// would: each request by both methods, runnable; the server entry; another copy of the document; lint and diff on
// a required name that is not defined.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { requestSamples } from '../src/docs/samples.ts';
import { ENDPOINTS } from '../src/openapi/types.ts';
import { SETTINGS, type Setting } from '../src/shared/settings.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { ROOT, runCli } from './helpers.ts';
import { api } from './sim-harness.ts';

const tmp = mkdtempSync(join(tmpdir(), 'h2h-docs-readable-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const DOC = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8');

/** `h2h docs [FILE] --reports-dir DIR`: API.md and index.html as written. */
async function built(dir: string, file?: string): Promise<{ md: string; html: string }> {
  const r = await runCli(['docs', ...(file ? [file] : []), '--reports-dir', dir]);
  assert.equal(r.code, 0, r.stderr);
  return {
    md: readFileSync(join(dir, 'docs', 'API.md'), 'utf8'),
    html: readFileSync(join(dir, 'docs', 'index.html'), 'utf8'),
  };
}

describe('the API reference, read as a reader would', () => {
  let page: { md: string; html: string };
  let sim: Simulator;
  before(async () => {
    page = await built(join(tmp, 'bundled'));
    sim = await startSimulator();
  });
  after(() => sim.close());

  it('every operation shows its request by GET with its query string, and a curl line beside the POST body', () => {
    for (const e of ENDPOINTS) {
      const section = page.md.split(`\n## ${e}\n`)[1]?.split('\n## ')[0] ?? '';
      const samples = requestSamples(api.doc, api.operation(e).path);
      assert.ok(samples.length > 0, `${e}: a request example`);
      for (const s of samples) {
        assert.ok(section.includes(JSON.stringify(s.body, null, 2)), `${e}: the POST body`);
        assert.ok(section.includes(`\nGET ${s.get}\n`), `${e}: the GET request`);
        assert.ok(section.includes(`\n${s.curlPost}\n`) && section.includes(`\n${s.curlGet}\n`), `${e}: curl`);
        // The query string carries exactly the body's parameters.
        const query = Object.fromEntries(new URL(s.get, 'http://h').searchParams);
        assert.deepEqual(query, Object.fromEntries(Object.entries(s.body).map(([k, v]) => [k, String(v)])));
        // The HTML reference shows the same lines (Redoc's code samples, in its inlined document).
        // (as a JSON string in a script: quotes escaped, `<` as \u003c)
        const inPage = (text: string): string => JSON.stringify(text).slice(1, -1).replace(/</g, '\\u003c');
        assert.ok(page.html.includes(inPage(s.curlPost)), `${e}: curl POST in index.html`);
        assert.ok(page.html.includes(inPage(s.curlGet)), `${e}: curl GET in index.html`);
      }
    }
  });

  it('the requests shown work: a reading endpoint answers the GET line as it answers the POST body', async () => {
    for (const e of ['saldo-user', 'history-transaksi', 'cek-trx-id'] as const)
      for (const s of requestSamples(api.doc, api.operation(e).path)) {
        const key = (text: string): string => text.replace(/<API_KEY>/g, encodeURIComponent(sim.apiKey));
        const byGet = await fetch(`${sim.url}${key(s.get)}`);
        const byPost = await fetch(`${sim.url}${api.operation(e).path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(s.body).replace(/<API_KEY>/g, sim.apiKey),
        });
        const get = (await byGet.json()) as { ok: unknown; status: unknown };
        assert.deepEqual(await byPost.json(), get, `${e} ${s.name}: GET and POST alike`);
        assert.notEqual(get.status, 'INVALID_API_KEY', `${e}: the key placeholder is where the key goes`);
        assert.equal(typeof get.ok, 'boolean');
      }
  });

  it('the server entry reads right: no literal backticks, no deprecated flag, shown in the HTML', () => {
    const servers = (parse(DOC) as { servers: { url: string; description: string }[] }).servers;
    assert.ok(servers.length > 0);
    const rows: readonly Setting[] = SETTINGS;
    const deprecated = new Set(rows.flatMap((s) => s.deprecated?.flags ?? []));
    const current = new Set<string>(rows.filter((s) => s.commands.includes('mock')).map((s) => s.flag));
    for (const s of servers) {
      assert.doesNotMatch(s.description, /`/, s.description);
      for (const [, flag] of s.description.matchAll(/--([a-z-]+)/g)) {
        assert.ok(!deprecated.has(flag ?? ''), `--${flag} is deprecated`);
        assert.ok(current.has(flag ?? ''), `--${flag} is a flag of h2h mock`);
      }
      assert.ok(page.html.includes(s.description), 'shown in index.html');
    }
  });
});

describe('h2h docs FILE, lint and diff on another copy of the document', () => {
  it('h2h docs FILE renders that copy, not the bundled one; a missing FILE exits 2', async () => {
    const copy = join(tmp, 'review.yaml');
    writeFileSync(copy, DOC.replace(/^ {2}title: .*$/m, '  title: Review copy of the H2H API'));
    const page = await built(join(tmp, 'review'), copy);
    assert.match(page.md, /^# Review copy of the H2H API \(/);
    assert.ok(page.html.includes('Review copy of the H2H API'));
    const bundled = await built(join(tmp, 'bundled-again'));
    assert.ok(!bundled.md.includes('Review copy'));
    const missing = await runCli(['docs', join(tmp, 'no-such.yaml'), '--reports-dir', join(tmp, 'x')]);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /no-such\.yaml: no such file/);
  });

  it('a required name not defined in properties: lint reports it (exit 1, never 3), diff counts it as breaking', async () => {
    const edited = join(tmp, 'required.yaml');
    const text = DOC.replace(
      'required: [api_key, trx_id, product_code, msisdn]',
      'required: [api_key, trx_id, product_code, msisdn, callback_url]',
    );
    assert.notEqual(text, DOC, 'the edit applies');
    writeFileSync(edited, text);
    const lint = await runCli(['lint', edited]);
    assert.equal(lint.code, 1, lint.stdout + lint.stderr);
    assert.match(
      lint.stdout,
      /^FAIL required-defined components\.schemas\.InviteRequest: 'callback_url' is required but not defined in properties/m,
    );
    assert.doesNotMatch(lint.stdout + lint.stderr, /internal error/);
    const diff = await runCli(['diff', join(ROOT, 'openapi.yaml'), edited]);
    assert.equal(diff.code, 1, diff.stdout + diff.stderr);
    assert.match(diff.stdout, /^h2h diff: 1 breaking, 0 safe change\(s\)$/m);
    assert.match(diff.stdout, /BREAKING POST \/api\/invite-member: parameter callback_url added as required/);
    const clean = await runCli(['lint']);
    assert.equal(clean.code, 0, clean.stdout);
  });
});

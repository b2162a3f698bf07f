import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'h2h-cli-'));
const file = (name: string, content: string): string => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

describe('h2h validate', () => {
  it('exits 0 on a response that keeps the contract', async () => {
    const r = await runCli([
      'validate',
      'saldo-user',
      file('good.json', '{"ok":true,"status":"SUCCESS","saldo":150000}'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /contract holds/);
  });

  it('finds the violation in a bad response and exits 1', async () => {
    const bad = {
      ok: true,
      status: 'SUCCESS',
      data: [{ trx_id: 'A', manager_number: '62811', member_number: '62812', date: '22-11-2026' }],
    };
    const r = await runCli(['validate', 'history-transaksi', file('bad.json', JSON.stringify(bad))]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL HIS-1 .*\$\.data\[0\]\.date: expected a string matching/);
  });

  it('with the request, applies the clauses that compare with it (HIS-2)', async () => {
    const rec = { trx_id: 'A', manager_number: '62811', member_number: '62812', date: '2026-11-22' };
    const cap = {
      request: { method: 'GET', params: { api_key: 'secret-key-123456', limit: '1' } },
      response: { status: 200, body: { ok: true, status: 'SUCCESS', data: [rec, { ...rec, trx_id: 'B' }] } },
    };
    const r = await runCli(['validate', 'history-transaksi', file('cap.json', JSON.stringify(cap)), '--json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as { findings: { clause: string; method: string }[] };
    assert.deepEqual(
      out.findings.map((f) => [f.clause, f.method]),
      [['HIS-2', 'GET']],
    );
  });

  it('accepts a well-formed refusal; its status is drift (failing only --strict) only beside a known list', async () => {
    const p = file('refusal.json', '{"ok":false,"status":"GAGAL","message":"no"}');
    assert.equal((await runCli(['validate', 'cek-trx-id', p])).code, 0);
    assert.equal((await runCli(['validate', 'cek-trx-id', p, '--strict'])).code, 0, 'the provider documents none');
    const listed = await runCli(['validate', 'cek-trx-id', p, '--strict', '--known-status', 'GAGAL']);
    assert.equal(listed.code, 0);
    const strict = await runCli(['validate', 'cek-trx-id', p, '--strict', '--known-status', 'TRX_NOT_FOUND']);
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /drift status \$\.status = "GAGAL"/);
  });

  it('exits 2 with a clear message on a missing file, malformed JSON, or an unknown endpoint', async () => {
    const missing = await runCli(['validate', 'saldo-user', join(dir, 'nope.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.json: no such file/);
    const malformed = await runCli(['validate', 'saldo-user', file('m.json', '{"ok": tru')]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /m\.json is not valid JSON/);
    const endpoint = await runCli(['validate', 'saldo', file('e.json', '{}')]);
    assert.equal(endpoint.code, 2);
    assert.match(
      endpoint.stderr,
      /unknown endpoint 'saldo'; one of: invite-member, history-transaksi, cek-trx-id, saldo-user/,
    );
    const args = await runCli(['validate', 'saldo-user']);
    assert.equal(args.code, 2);
    assert.match(args.stderr, /expected 2 argument\(s\), got 1/);
  });
});

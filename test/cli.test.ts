import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/h2h.ts';
import { runCli, startCli } from './helpers.ts';

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

describe('h2h mock', () => {
  it('prints H2H_BASE_URL and H2H_API_KEY, serves on 127.0.0.1, and stops on SIGTERM', async () => {
    const m = await startCli(['mock', '--port', '0', '--api-key', 'cli-test-key-42']);
    try {
      assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(m.apiKey, 'cli-test-key-42');
      const r = await fetch(`${m.url}/api/saldo-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: m.apiKey }),
      });
      assert.deepEqual(await r.json(), { ok: true, status: 'SUCCESS', saldo: 10_000_000 });
    } finally {
      await m.stop();
    }
    assert.equal(m.child.exitCode, 0);
  });

  it('starts with a fault and a prefix', async () => {
    const m = await startCli(['mock', '--fault', 'saldo-as-string', '--prefix', '/h2h']);
    try {
      const r = (await (await fetch(`${m.url}/api/saldo-user?api_key=${m.apiKey}`)).json()) as { saldo: unknown };
      assert.equal(typeof r.saldo, 'string');
    } finally {
      await m.stop();
    }
  });

  it('refuses bad flags and bad fixtures with exit 2 and an exact message', async () => {
    const cases: [string[], RegExp][] = [
      [['mock', '--port', '99999'], /--port must be an integer from 0 to 65535, got '99999'/],
      [['mock', '--fault', 'nope'], /--fault: unknown fault 'nope'; one of: envelope-no-status/],
      [['mock', '--legal', 'odd=1'], /--legal: unknown knob 'odd'; knobs: slot, order/],
      [
        ['mock', '--legal', 'slot=sideways'],
        /--legal: slot must be one of old, next-free, round-robin, random, got 'sideways'/,
      ],
      [['mock', '--legal', 'lag=soon'], /--legal: lag must be milliseconds like 0, 200ms or 2s, got 'soon'/],
      [['mock', '--legal-profile', join(dir, 'none.yaml')], /profile file .*none\.yaml: no such file/],
      [
        ['mock', '--legal-profile', file('p.yaml', 'order: sideways\n')],
        /profile file .*p\.yaml: order must be one of/,
      ],
      [['mock', '--bogus'], /Unknown option '--bogus'/],
      [['mock', '--fixtures', join(dir, 'none.yaml')], /fixture file .*none\.yaml: no such file/],
      [
        ['mock', '--fixtures', file('bad.yaml', 'accounts: []\nproducts: 3\n')],
        /\$\.accounts: must NOT have fewer than 1 items[\s\S]*\$\.products: must be array/,
      ],
      [
        [
          'mock',
          '--fixtures',
          file(
            'xref.yaml',
            'accounts: [{id: a, api_key: aaaaaaaa, saldo: 1}]\nproducts: [{code: P, name: P, kind: akrab, price: 1}]\nmanagers: [{number: "6281100000001", account: zz, kind: akrab, slots: 1}]\nsuite: {account: a, product: P, kind: akrab, msisdns: ["081200000001"], max_invites: 1}\nhistory: []\n',
          ),
        ],
        /managers: 6281\*+001 names unknown account 'zz'/,
      ],
      [['nocommand'], /unknown command 'nocommand'/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
  });

  it('every command answers --help with its usage and each of its flags', async () => {
    assert.equal(COMMANDS.length, 7);
    for (const cmd of COMMANDS) {
      const r = await runCli([cmd.name, '--help']);
      assert.equal(r.code, 0, cmd.name);
      assert.match(r.stdout, new RegExp(`^usage: h2h ${cmd.name}`), cmd.name);
      for (const flag of Object.keys(cmd.options))
        assert.match(r.stdout, new RegExp(`--${flag}\\b`), `${cmd.name} --${flag}`);
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isLoopback } from '../src/simulator/server.ts';
import { runCli, startCli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'h2h-cli-'));
const file = (name: string, content: string): string => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

describe('h2h mock', () => {
  it('prints H2H_BASE_URL (and the demo key only when none was given), serves on 127.0.0.1, and stops on SIGTERM', async () => {
    const m = await startCli(['mock', '--port', '0', '--api-key', 'cli-test-key-42']);
    try {
      assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(m.apiKey, '', 'a key the user gave is not printed back');
      assert.ok(!`${m.stdout()}${m.stderr()}`.includes('cli-test-key-42'));
      const r = await fetch(`${m.url}/api/saldo-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'cli-test-key-42' }),
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
      [['mock', '--port', '99999'], /--port: port 99999 is out of range \(0 to 65535\)/],
      [['mock', '--listen', '127.0.0.1:99999'], /--listen: port 99999 is out of range \(0 to 65535\)/],
      [['mock', '--fault', 'nope'], /--fault: unknown fault 'nope'; one of: envelope-no-status/],
      [['mock', '--legal', 'odd=1'], /--legal: unknown knob 'odd'; knobs: slot, order/],
      [
        ['mock', '--legal', 'slot=sideways'],
        /--legal: slot must be one of old, next-free, round-robin, random, got 'sideways'/,
      ],
      [['mock', '--legal', 'lag=soon'], /--legal: lag must be a duration like 0ms, 200ms or 2s, got 'soon'/],
      [['mock', '--legal-profile', join(dir, 'none.yaml')], /profile file .*none\.yaml: no such file/],
      [
        ['mock', '--legal-profile', file('p.yaml', 'order: sideways\n')],
        /profile file .*p\.yaml: order must be one of/,
      ],
      [['mock', '--bogus'], /^h2h mock: unknown flag --bogus \(h2h mock --help\)$/m],
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
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
  });

  it("the admin endpoints need the simulator's admin token when it has one; its API does not", async () => {
    const m = await startCli(['mock', '--port', '0', '--admin-token', 'adm-tok-5521']);
    try {
      assert.match(m.apiKey, /\S/, 'the demo key is printed');
      const open = await fetch(`${m.url}/__sim/faults`);
      assert.equal(open.status, 401);
      assert.match(await open.text(), /Authorization: Bearer/);
      const wrong = await fetch(`${m.url}/__sim/log`, { headers: { authorization: 'Bearer adm-tok-0000' } });
      assert.equal(wrong.status, 401);
      const ok = await fetch(`${m.url}/__sim/faults`, { headers: { authorization: 'Bearer adm-tok-5521' } });
      assert.equal(ok.status, 200);
      const api = await fetch(`${m.url}/api/saldo-user?api_key=${m.apiKey}`);
      assert.equal(api.status, 200);
    } finally {
      await m.stop();
    }
    assert.equal(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost'), true);
    assert.equal(isLoopback('0.0.0.0') || isLoopback('192.168.1.4') || isLoopback('::'), false);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/commands.ts';
import {
  COMMAND_NAMES,
  defaultValue,
  envName,
  get,
  resolveSettings,
  SETTINGS,
  settingsOf,
  usageLine,
} from '../src/shared/settings.ts';
import { contractConfigOf, NO_TARGET_ENV, probeConfigOf, runCli } from './helpers.ts';

// One settings table: every row below was an inconsistency of two hand-written resolvers, each failing on the old
// behaviour named beside it.

const tmp = mkdtempSync(join(tmpdir(), 'h2h-settings-'));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const throwsUsage = (fn: () => unknown, message: RegExp): void => assert.throws(fn, message);

describe('one settings table: flags, environment, config file, defaults', () => {
  it('a duration reads the same everywhere: 1m30s, 1.5s, 500ms; a bare number nowhere (was: flag yes, file no)', () => {
    for (const [text, ms] of [
      ['1m30s', 90_000],
      ['1.5s', 1500],
      ['500ms', 500],
    ] as const) {
      assert.equal(contractConfigOf(['--timeout', text]).timeoutMs, ms, `--timeout ${text}`);
      assert.equal(contractConfigOf([], { H2H_TIMEOUT: text }).timeoutMs, ms, `H2H_TIMEOUT=${text}`);
      assert.equal(contractConfigOf(['--config', file('t.yaml', `timeout: ${text}\n`)]).timeoutMs, ms, `file ${text}`);
      assert.equal(contractConfigOf(['--settle', text]).settleMs, ms, `--settle ${text}`);
      assert.equal(probeConfigOf(['--timeout-offset', text]).timeoutOffsetMs, ms, `--timeout-offset ${text}`);
    }
    throwsUsage(() => contractConfigOf(['--timeout', '10']), /^Error: --timeout 10: not a duration/);
    throwsUsage(() => contractConfigOf([], { H2H_TIMEOUT: '10' }), /^Error: H2H_TIMEOUT=10: not a duration/);
    throwsUsage(
      () => contractConfigOf(['--config', file('bare.yaml', 'timeout: "10"\n')]),
      /config file .*bare\.yaml: timeout: 10: not a duration/,
    );
    throwsUsage(
      () => contractConfigOf(['--config', file('num.yaml', 'timeout: 10\n')]),
      /config file .*num\.yaml: timeout: 10: not a duration/,
    );
  });

  it('an error names where the bad value came from (was: "expected 1/0/true/false" without the variable)', () => {
    throwsUsage(() => contractConfigOf([], { H2H_ALLOW_WRITES: 'maybe' }), /H2H_ALLOW_WRITES=maybe: not a boolean/);
    throwsUsage(() => contractConfigOf(['--max-invites', 'lots']), /--max-invites lots: not a whole number/);
    throwsUsage(
      () => contractConfigOf(['--config', file('mi.yaml', 'max_invites: 5000\n')]),
      /mi\.yaml: max_invites: 5000: must be from 0 to 1000/,
    );
  });

  it('one base-URL check: a probe file target with a query or fragment is refused like --base-url (was: accepted)', () => {
    const probe = file(
      'probe.yaml',
      'targets:\n  - {name: a, base_url: "http://127.0.0.1:1/x?token=abc#frag", api_key_env: K}\n',
    );
    throwsUsage(() => probeConfigOf(['--config', probe], { K: 'k' }), /targets\[0\] \(a\): base_url: .*query string/);
    throwsUsage(
      () => probeConfigOf(['--base-url', 'http://127.0.0.1:1/x?token=abc', '--api-key', 'k']),
      /query string/,
    );
    throwsUsage(() => contractConfigOf(['--base-url', 'http://127.0.0.1:1/#f', '--api-key', 'k']), /query string/);
    const userinfo = file('ui.yaml', 'targets:\n  - {name: a, base_url: "http://u:pw@127.0.0.1:1", api_key_env: K}\n');
    assert.throws(
      () => probeConfigOf(['--config', userinfo], { K: 'k' }),
      (e: Error) => /user name or password/.test(e.message) && !e.message.includes('pw'),
    );
  });

  it('environment names follow flag names; the old ones work, with a deprecation line (was: H2H_PRODUCT_CODE only)', () => {
    const base = ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--allow-writes'];
    const now = contractConfigOf(base, {
      H2H_PRODUCT: 'P1',
      H2H_MSISDN: '081200000001,6281200000002',
      H2H_TRX_ID: 'T1',
    });
    assert.equal(now.product, 'P1');
    assert.deepEqual(now.msisdns, ['081200000001', '6281200000002']);
    assert.equal(now.knownTrxId, 'T1');
    const old = resolveSettings('contract', base, {
      env: { H2H_PRODUCT_CODE: 'P0', H2H_TEST_MSISDNS: '081200000001', H2H_KNOWN_TRX_ID: 'T0' },
    });
    assert.equal(old.values.product, 'P0');
    assert.equal(old.values['trx-id'], 'T0');
    assert.deepEqual(
      old.deprecations.map((d) => d.split(':')[0]),
      ['H2H_PRODUCT_CODE is deprecated', 'H2H_TEST_MSISDNS is deprecated', 'H2H_KNOWN_TRX_ID is deprecated'],
    );
    // Every row's variable is H2H_ and its flag's name.
    for (const s of SETTINGS) {
      const name = envName(s);
      if (name) assert.equal(name, `H2H_${s.flag.toUpperCase().replace(/-/g, '_')}`);
    }
  });

  it('a flag wins over its variable, which wins over the file, which wins over the default', () => {
    const cfg = file('layers.yaml', 'timeout: 3s\nsettle: 4s\nmax_wait: 5s\n');
    const c = contractConfigOf(['--config', cfg, '--timeout', '1s'], { H2H_TIMEOUT: '2s', H2H_SETTLE: '2s' });
    assert.deepEqual([c.timeoutMs, c.settleMs, c.maxWaitMs, c.examples], [1000, 2000, 5000, 25]);
  });

  it('one set of names and units: mock --latency 300ms and --listen, docs --reports-dir; the old ones with a line', () => {
    const mock = resolveSettings('mock', ['--latency-ms', '300', '--host', '127.0.0.1', '--port', '0']);
    assert.equal(mock.values.latency, 300);
    assert.deepEqual(mock.values.listen, { host: '127.0.0.1', port: 0 });
    assert.equal(mock.deprecations.length, 2);
    assert.equal(resolveSettings('mock', ['--latency', '1.5s']).values.latency, 1500);
    const docs = resolveSettings('docs', ['--out', '/tmp/x']);
    assert.equal(docs.values['reports-dir'], '/tmp/x');
    assert.match(docs.deprecations[0] ?? '', /--out is deprecated: use --reports-dir/);
    assert.throws(() => resolveSettings('mock', ['--latency-ms', 'soon']), /--latency-ms soonms: not a duration/);
  });

  it('replay takes --rate-limit as it reads H2H_RATE_LIMIT (was: refused the flag, read the variable)', () => {
    assert.equal(resolveSettings('replay', ['--rate-limit', '5/s']).values['rate-limit'], 5);
    assert.equal(resolveSettings('replay', [], { env: { H2H_RATE_LIMIT: '120/m' } }).values['rate-limit'], 2);
  });

  it('usage lines come from the table: every flag of a command is in its usage line (was: contract lacked four)', () => {
    for (const command of COMMAND_NAMES)
      for (const s of settingsOf(command))
        assert.ok(usageLine(command).includes(`--${s.flag}`), `${command} --${s.flag}`);
    assert.deepEqual(
      COMMANDS.map((c) => c.name),
      [...COMMAND_NAMES],
    );
  });

  it('an unknown flag is answered once, in the project’s words, with what was meant', async () => {
    const r = await runCli(['contract', '--max-invite', '3'], { env: NO_TARGET_ENV });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr.trim(),
      'h2h contract: unknown flag --max-invite; did you mean --max-invites? (h2h contract --help)',
    );
    const far = await runCli(['probe', '--zzz'], { env: NO_TARGET_ENV });
    assert.equal(far.stderr.trim(), 'h2h probe: unknown flag --zzz (h2h probe --help)');
  });

  it('settings are read by name and type: a wrong name or type does not compile; a default is always there', () => {
    const r = resolveSettings('contract', [], { env: {} });
    // @ts-expect-error a setting the table does not have
    assert.throws(() => get.str(r, 'prodcut'), /--prodcut is not a setting/);
    // @ts-expect-error a number read as text
    assert.equal(get.str(r, 'timeout'), 10_000);
    // Typed number, never undefined: the table's default, its only copy.
    const timeout: number = get.num(r, 'timeout');
    assert.equal(timeout, defaultValue('timeout'));
    const chars: 'alnum' | 'upper' | 'digits' = get.str(r, 'trx-id-chars');
    assert.equal(chars, 'alnum');
    // A setting the command does not take is at its default (replay reads the contract's config).
    assert.equal(get.bool(resolveSettings('replay', [], { env: {} }), 'strict'), false);
  });
});

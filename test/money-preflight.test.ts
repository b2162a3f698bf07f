import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseReading } from '../src/simulator/legal.ts';
import { gateAgainst, withSim } from './gate-runs.ts';
import { NO_TARGET_ENV, runCli, violated } from './helpers.ts';

// Money, preflight and reports: what the gate sends without --allow-writes, and what its reports hold.

describe('money, preflight and reports', () => {
  it('an invite that times out is never sent again, and counts against the cap', async () => {
    await withSim(
      parseReading('reference'),
      async (sim) => {
        // The invite scenarios: the reads would only answer, and take the time of a whole run.
        const r = await gateAgainst(sim, ['--timeout', '700ms', '--max-invites', '4', '--grep', '^INV-']);
        // No answer proves nothing: the clauses that needed the invites are inconclusive, with the cause.
        assert.equal(r.code, 4, r.console.slice(-2000));
        assert.deepEqual(violated(r.summary), []);
        assert.ok(
          r.summary?.clauses.some((c) => /no answer: timeout/.test(c.causes.join(' '))),
          'a clause names the timeout as the cause it could not be judged',
        );
        const invites = sim.log.filter((e) => e.endpoint === 'invite-member');
        const trx = invites.map((e) => String(e.params?.trx_id ?? e.params?.trxid ?? '(none)'));
        const withTrx = trx.filter((t) => t !== '(none)');
        assert.equal(new Set(withTrx).size, withTrx.length, `no trx_id sent twice: ${trx.join(' ')}`);
        assert.ok(invites.length > 0 && invites.length <= 4, `${invites.length} invites reached the target`);
        assert.equal(r.summary?.spend.charged, invites.length, 'every unanswered invite counts against the cap');
        assert.ok((r.summary?.spend.skipped.length ?? 0) > 0, 'what the cap kept from running is listed');
        assert.match(r.console, /at most 4 invite\(s\) can be charged/);
      },
      'invite-hang',
    );
  });

  it('a key that saldo-user refuses exits 2 with one line that says so', async () => {
    await withSim(parseReading('reference'), async (sim) => {
      const r = await runCli(['contract', '--base-url', sim.url, '--api-key', 'not-the-key-1234'], {
        env: NO_TARGET_ENV,
      });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`the API key was refused by ${sim.url.replace(/[.]/g, '\\.')}`));
      assert.ok(!r.stderr.includes('not-the-key-1234'));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    });
  });

  // One test case per planned scenario: gate.test.ts, on its whole run.
  it('JUnit: --grep selects scenarios, not groups', async () => {
    await withSim(parseReading('reference'), async (sim) => {
      const grep = await gateAgainst(sim, ['--grep', 'HIS-3 history-transaksi (GET|POST): filter']);
      const names = [
        ...readFileSync(join(grep.reports, 'junit.xml'), 'utf8').matchAll(/<testcase [^>]*name="([^"]+)"/g),
      ].map((m) => m[1] ?? '');
      assert.ok(names.length > 0);
      for (const n of names) assert.match(n, /HIS-3/);
      assert.equal(grep.summary?.clauses.find((c) => c.id === 'HIS-2')?.status, 'held', 'judged on every answer');
    });
  });
});

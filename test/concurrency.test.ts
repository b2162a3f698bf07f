import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeClauses } from '../src/checks/judge.ts';
import { callApi } from '../src/client/client.ts';
import type { Exchange } from '../src/openapi/types.ts';
import { loadFixture } from '../src/simulator/fixtures.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { api } from './sim-harness.ts';

async function race(fault: 'duplicate-trx-accepted' | null) {
  const sim = await startSimulator({ fault: fault ? { name: fault } : null });
  try {
    const account = sim.fixture.suite.account;
    const price = sim.fixture.products.find((p) => p.code === sim.fixture.suite.product)?.price ?? 0;
    const call = (
      endpoint: 'saldo-user' | 'history-transaksi' | 'invite-member',
      method: 'GET' | 'POST',
      params: Record<string, unknown>,
    ) =>
      callApi({
        baseUrl: sim.url,
        endpoint,
        method,
        params: { api_key: sim.apiKey, ...params },
        timeoutMs: 20_000,
      }).then((r) => r.exchange as Exchange);
    const saldoBefore = await call('saldo-user', 'GET', {});
    const params = {
      trx_id: 'RACE-0001',
      product_code: sim.fixture.suite.product,
      msisdn: '081299900001',
      kind: 'akrab',
    };
    const all = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call('invite-member', i % 2 ? 'GET' : 'POST', params)),
    );
    const saldoAfter = await call('saldo-user', 'GET', {});
    const history = await call('history-transaksi', 'POST', { q: 'RACE-0001', limit: 200 });
    const [invite, ...repeats] = all.sort(
      (a, b) => Number((b.body as { ok: boolean }).ok) - Number((a.body as { ok: boolean }).ok),
    );
    assert.ok(invite);
    const findings = judgeClauses(api, ['INV-5'], {
      invite,
      repeats,
      saldoBefore,
      saldoAfter,
      history,
      unitPrice: price,
    });
    return {
      all,
      findings,
      txns: sim.state.transactions(account, 'RACE-0001').length,
      charged: (sim.state.saldo(account) ?? 0) - 0,
      price,
      sim,
    };
  } finally {
    await sim.close();
  }
}

describe('concurrency', () => {
  it('100 simultaneous invites with one trx_id create one transaction and one charge (INV-5)', async () => {
    const r = await race(null);
    const ok = r.all.filter((e) => (e.body as { ok: boolean }).ok === true);
    assert.equal(ok.length, 1);
    assert.ok(r.all.filter((e) => (e.body as { status: string }).status === 'DUPLICATE_TRX_ID').length === 99);
    assert.equal(r.txns, 1);
    assert.deepEqual(r.findings, []);
  });

  it('the same race against the duplicate-trx-accepted fault is caught by INV-5', async () => {
    const r = await race('duplicate-trx-accepted');
    assert.ok(r.txns > 1);
    assert.ok(r.findings.some((f) => f.clause === 'INV-5'));
  });

  it('simultaneous invites never take the balance below zero', async () => {
    const fixture = loadFixture();
    const demo = fixture.accounts.find((a) => a.id === fixture.suite.account);
    assert.ok(demo);
    demo.saldo = 100_000; // room for two invites of 45000
    const sim = await startSimulator({ fixture });
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          callApi({
            baseUrl: sim.url,
            endpoint: 'invite-member',
            method: 'POST',
            params: {
              api_key: sim.apiKey,
              trx_id: `POOR-${i}`,
              product_code: 'AKRAB-10GB',
              msisdn: fixture.suite.msisdns[i % 3],
            },
            timeoutMs: 20_000,
          }),
        ),
      );
      const statuses = answers.map((a) => (a.exchange?.body as { status?: string } | undefined)?.status);
      assert.equal(statuses.filter((s) => s === 'SUCCESS').length, 2);
      assert.equal(statuses.filter((s) => s === 'INSUFFICIENT_BALANCE').length, 48);
      assert.equal(sim.state.saldo(fixture.suite.account), 10_000);
    } finally {
      await sim.close();
    }
  });
});

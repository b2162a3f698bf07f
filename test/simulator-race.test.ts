import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeClauses } from '../src/checks/judge.ts';
import { callApi } from '../src/client/client.ts';
import type { Exchange } from '../src/openapi/types.ts';
import { loadFixture } from '../src/simulator/fixtures.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { api } from './sim-harness.ts';

// The simulator's invite waits for its charge at the operator (an await between its checks and its record),
// so simultaneous requests really interleave there: what keeps one transaction is the in-flight guard, and the
// `inflight-duplicate` fault (the guard off) shows that this test can fail.

async function race(fault: 'duplicate-trx-accepted' | 'inflight-duplicate' | null) {
  const sim = await startSimulator({ fault: fault ? { name: fault } : null });
  try {
    const account = sim.fixture.suite.account;
    const price = sim.fixture.products.find((p) => p.code === sim.fixture.suite.product)?.price ?? 0;
    const call = async (
      endpoint: 'saldo-user' | 'history-transaksi' | 'invite-member',
      method: 'GET' | 'POST',
      params: Record<string, unknown>,
    ): Promise<Exchange> => {
      const r = await callApi({
        baseUrl: sim.url,
        endpoint,
        method,
        params: { api_key: sim.apiKey, ...params },
        timeoutMs: 20_000,
      });
      assert.ok(r.exchange, `${endpoint} answered`);
      return r.exchange;
    };
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
    const ok = (e: Exchange): boolean => (e.body as { ok?: unknown }).ok === true;
    const [invite, ...repeats] = [...all.filter(ok), ...all.filter((e) => !ok(e))];
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
      accepted: all.filter(ok).length,
      duplicates: all.filter((e) => (e.body as { status?: unknown }).status === 'DUPLICATE_TRX_ID').length,
      findings,
      txns: sim.state.transactions(account, 'RACE-0001').length,
      charged: (sim.state.saldo(account) ?? 0) - ((saldoBefore.body as { saldo: number }).saldo ?? 0),
      price,
    };
  } finally {
    await sim.close();
  }
}

describe('concurrency', () => {
  it('100 simultaneous invites with one trx_id create one transaction and one charge (INV-5)', async () => {
    const r = await race(null);
    assert.equal(r.accepted, 1);
    assert.equal(r.duplicates, 99);
    assert.equal(r.txns, 1);
    assert.equal(r.charged, -r.price, 'charged exactly once');
    assert.deepEqual(r.findings, []);
  });

  it('without the in-flight guard the same race creates several transactions, and INV-5 says so', async () => {
    const r = await race('inflight-duplicate');
    assert.ok(r.txns > 1, `${r.txns} transactions`);
    assert.ok(r.charged < -r.price, `charged ${-r.charged}, more than one price`);
    assert.ok(r.findings.some((f) => f.clause === 'INV-5'));
  });

  it('a repeat accepted after the first was recorded is caught by INV-5 too', async () => {
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

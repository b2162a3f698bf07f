import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SavedFailure } from '../src/report/failures.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { listenLocal, NO_TARGET_ENV, runCli, writeTargetFlags } from './helpers.ts';

// h2h replay sends a saved invite through the gate's one invite sender: the same money rules as the run that
// saved it. An invite a clause says must be refused could still be carried out by a broken provider: it needs
// --allow-writes, it counts against --max-invites, and one that got no answer may have been charged.

const tmp = mkdtempSync(join(tmpdir(), 'h2h-replay-'));

/** A saved failure of INV-3: an invite to a member number of a form the API must refuse (prefix 07). */
function savedInvite(sim: Simulator): string {
  const file = join(tmp, 'inv-3.json');
  const saved: SavedFailure = {
    version: 1,
    seed: 7,
    scenario: 'INV-3 invite-member POST: generated coverage cases',
    case: {
      phase: 'coverage',
      endpoint: 'invite-member',
      method: 'POST',
      params: {
        api_key: '{{api_key}}',
        trx_id: '{{fresh-trx}}',
        product_code: sim.fixture.suite.product,
        msisdn: '0781234567890',
      },
      label: 'msisdn via msisdn: prefix 07',
      refuse: 'INV-3',
      intent: { expect: 'refusal', clause: 'INV-3' },
    },
    findings: ['INV-3 invite-member POST: an invalid number was accepted'],
    response: { httpStatus: 200, body: '{"ok":true}' },
    curl: '',
    target: sim.url,
  };
  writeFileSync(file, JSON.stringify(saved));
  return file;
}

/** The simulator behind a front that resets every invite-member request and passes the rest on. */
async function resettingInvites(
  sim: Simulator,
): Promise<{ url: string; invites: () => number; close(): Promise<void> }> {
  let invites = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.includes('/api/invite-member')) {
      invites++;
      req.socket.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const answer = await fetch(`${sim.url}${req.url}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(req.method === 'POST' ? { body } : {}),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  const front = await listenLocal(server);
  return { ...front, invites: () => invites };
}

describe('h2h replay keeps the money rules of the run that saved a case', () => {
  let sim: Simulator;
  let file: string;
  const invitesSeen = (): number => [...sim.log.entries()].filter(([, e]) => e.endpoint === 'invite-member').length;
  before(async () => {
    sim = await startSimulator();
    file = savedInvite(sim);
  });
  after(async () => {
    await sim.close();
  });

  it('without --allow-writes: NOT SENT, and the target got no invite', async () => {
    const flags = writeTargetFlags(sim).filter((f) => f !== '--allow-writes');
    const r = await runCli(['replay', file, ...flags, '--reports-dir', tmp], { env: NO_TARGET_ENV });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^NOT SENT .*prefix 07: an invite that could be charged needs --allow-writes$/m);
    assert.equal(invitesSeen(), 0);
  });

  it('with writes and --max-invites 0: NOT SENT by the cap, and the target got no invite', async () => {
    const r = await runCli(['replay', file, ...writeTargetFlags(sim), '--max-invites', '0', '--reports-dir', tmp], {
      env: NO_TARGET_ENV,
    });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^NOT SENT .*prefix 07: .*max-invites/m);
    assert.equal(invitesSeen(), 0);
  });

  it('an invite reset on the way: NO ANSWER, sent once and never again (it may have been charged)', async () => {
    const front = await resettingInvites(sim);
    try {
      const flags = writeTargetFlags(sim).map((f) => (f === sim.url ? front.url : f));
      const r = await runCli(['replay', file, file, ...flags, '--max-invites', '5', '--reports-dir', tmp], {
        env: NO_TARGET_ENV,
      });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^NO ANSWER .*prefix 07: reset/m);
      assert.equal(front.invites(), 2, 'each of the two files sent once, each with its own fresh trx_id');
      assert.match(r.stdout, /0 of 2 fixed/);
    } finally {
      await front.close();
    }
  });

  it('with writes against a conformant target: the refusal comes, FIXED', async () => {
    const r = await runCli(['replay', file, ...writeTargetFlags(sim), '--reports-dir', tmp], { env: NO_TARGET_ENV });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^FIXED .*prefix 07$/m);
    assert.equal(invitesSeen(), 1);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type InviteIntent, InviteLedger, NotSent } from '../src/target/invite-ledger.ts';

const refusal = { expect: 'refusal', clause: 'INV-3' } as const;

describe('the invite ledger with refusals side by side', () => {
  it('counts a refusal against the cap while it is out, and gives the room back once it was refused', () => {
    const ledger = new InviteLedger(2);
    ledger.admit(refusal, 'T1');
    ledger.admit(refusal, 'T2');
    // Both may still be charged by a broken API: a third would pass the cap were all three accepted.
    assert.throws(
      () => ledger.admit(refusal, 'T3'),
      (e: unknown) => e instanceof NotSent && e.why === 'cap',
    );
    ledger.settle(refusal, 'T1', 'refused');
    ledger.admit(refusal, 'T3');
    ledger.settle(refusal, 'T2', 'unknown');
    ledger.settle(refusal, 'T3', 'refused');
    assert.equal(ledger.charged, 1, 'the unanswered one counts; the refused ones do not');
    ledger.admit(refusal, 'T4');
    assert.throws(() => ledger.admit(refusal, 'T5'), /1 more still unanswered/);
  });

  it('counts as charged what a worker left unanswered when it was cut off', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'h2h-ledger-')), 'ledger.jsonl');
    const first = new InviteLedger(5, file);
    first.admit(refusal, 'T1');
    first.admit(refusal, 'T2', 2);
    first.settle(refusal, 'T1', 'refused');
    // A new worker reads the file: the two still out may have been charged.
    const next = new InviteLedger(5, file);
    assert.equal(next.charged, 2);
    next.admit(refusal, 'T3', 3);
    assert.throws(
      () => next.admit(refusal, 'T4'),
      (e: unknown) => e instanceof NotSent && e.why === 'cap',
    );
  });

  it('a new worker reads back every change: what was carried out, the price, the unanswered and the closed', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'h2h-ledger-')), 'ledger.jsonl');
    const first = new InviteLedger(9, file);
    const success: InviteIntent = { expect: 'success', clause: 'INV-1' };
    first.admit(success, 'S1');
    first.noteCarriedOut({ trxId: 'S1', sentAs: 'trxid', body: { ok: true, trx_id: 'S1' } });
    first.notePrice(5000);
    first.admit(refusal, 'T1');
    first.settle(refusal, 'T1', 'accepted');
    first.admit(success, 'S2');
    first.settle(success, 'S2', 'unknown');
    const next = new InviteLedger(9, file);
    assert.equal(next.charged, 3, 'the success sent, the refusal accepted, the one with no answer');
    assert.deepEqual(next.carriedOut, [{ trxId: 'S1', sentAs: 'trxid', body: { ok: true, trx_id: 'S1' } }]);
    assert.equal(next.price, 5000);
    assert.throws(
      () => next.admit(success, 'S2'),
      (e: unknown) => e instanceof NotSent && e.why === 'unknown',
    );
    assert.throws(
      () => next.admit(refusal, 'T2'),
      (e: unknown) => e instanceof NotSent && e.why === 'closed',
    );
  });

  it('a worker that starts while another appends a line reads that line whole, once it is written', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'h2h-ledger-')), 'ledger.jsonl');
    const first = new InviteLedger(9, file);
    first.admit({ expect: 'success', clause: 'INV-1' }, 'S1');
    // Half of the next line is on disk; another process writes the rest a little later (this one blocks while it
    // waits, as a Playwright worker's fixture does).
    appendFileSync(file, '{"charged":2,"pen');
    const rest = spawn(process.execPath, [
      '-e',
      `process.stdout.write('up\\n'); setTimeout(() => require('node:fs').appendFileSync(${JSON.stringify(file)}, 'ding":0}\\n'), 200)`,
    ]);
    // Read once the other process runs: its rest comes 200 ms later, well within the reader's 2 s.
    await new Promise((r) => rest.stdout.once('data', r));
    const next = new InviteLedger(9, file);
    assert.equal(next.charged, 2, 'the line written in two parts is read whole');
    await new Promise((r) => rest.once('exit', r));
  });

  it("a worker that only reads writes no count of its own: the count stays the sending worker's", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'h2h-ledger-')), 'ledger.jsonl');
    const sender = new InviteLedger(3, file);
    sender.admit(refusal, 'T1');
    const before = readFileSync(file, 'utf8');
    // Another worker's test starts while the refusal is out: it may count it as charged, for itself only.
    const reader = new InviteLedger(3, file);
    assert.equal(reader.charged, 1);
    // What it notes goes in (one line), without its view of the count.
    reader.noteCarriedOut({ trxId: 'R1', sentAs: 'trx_id', body: { ok: true } });
    const added = readFileSync(file, 'utf8').slice(before.length).split('\n').filter(Boolean);
    assert.deepEqual(
      added.map((l) => Object.keys(JSON.parse(l) as object)),
      [['carried']],
      'the reader wrote what it noted, and no count',
    );
    sender.settle(refusal, 'T1', 'refused');
    assert.equal(new InviteLedger(3, file).charged, 0, 'the refusal refused: nothing charged, whoever read before');
  });

  it('never starts from nothing over a ledger it cannot read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'h2h-ledger-')), 'ledger.jsonl');
    writeFileSync(file, '{"cap": 5, "charged": 3');
    assert.throws(() => new InviteLedger(5, file), SyntaxError);
  });

  it('lets an admission wait for refusals still out, rather than skip it, and refuses one that can never fit', async () => {
    const ledger = new InviteLedger(3);
    ledger.admit(refusal, 'T1');
    ledger.admit(refusal, 'T2');
    let admitted = false;
    const two = ledger.admitAll([
      { intent: refusal, trxId: 'T3' },
      { intent: refusal, trxId: 'T4' },
    ]);
    void two.then(() => {
      admitted = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(admitted, false, 'two more do not fit beside two still out');
    ledger.settle(refusal, 'T1', 'refused');
    await two;
    assert.equal(admitted, true);
    await assert.rejects(
      ledger.admitAll([1, 2, 3, 4].map((n) => ({ intent: refusal, trxId: `U${n}` }))),
      (e: unknown) => e instanceof NotSent && e.why === 'cap',
    );
  });
});

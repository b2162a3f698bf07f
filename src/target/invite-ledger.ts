import { appendFileSync, readFileSync } from 'node:fs';
import { bodyOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { to62 } from '../openapi/numbers.js';
import type { ClauseId, Exchange, Params } from '../openapi/types.js';

/**
 * Why an invite is sent. `success`: a conformant API carries it out, and charges it. `refusal`: a conformant
 * API must refuse it (a bad msisdn, a wrong key, a used trx_id, ...); it is charged only if the API is broken.
 * `clause` names the class of a refusal: the clause that fails if it is accepted, or the guard that keeps a
 * contract-keeping API from carrying it out: `used-trx` (a used trx_id), `unknown-product` (a product that
 * cannot exist).
 */
export interface InviteIntent {
  expect: 'success' | 'refusal';
  clause: ClauseId | 'unknown-product' | 'used-trx';
}

/** A guard's refusal (a used trx_id, a product that cannot exist) keeps the API from carrying a request out. */
export const isGuard = (intent: InviteIntent | undefined): boolean =>
  intent?.clause === 'used-trx' || intent?.clause === 'unknown-product';

/** A request a clause says must be refused: a refusal that is not a guard's. */
export const refusalExpected = (intent: InviteIntent | undefined): boolean =>
  intent?.expect === 'refusal' && !isGuard(intent);

/** What became of one invite: answered ok true, answered otherwise, or no answer (it may have been charged). */
export type InviteOutcome = 'accepted' | 'refused' | 'unknown';

/** An invite of the run that was carried out: its trx_id and its answer's body (its detail). */
export interface CarriedOut {
  trxId: string;
  /** The name its trx_id was sent under (`trx_id`, `trxid`). */
  sentAs: string;
  body: unknown;
  /** What it sent: each parameter's value under its canonical name, the key left out. */
  sent?: Record<string, unknown>;
  /** How it was sent (`by POST`, `msisdn as nomor`, `msisdn 62-form`, `kind absent`): checks afterwards take one of each. */
  how?: string[];
}

interface LedgerState {
  cap: number;
  /** Invites that were, or may have been, charged. */
  charged: number;
  /**
   * Invites a conformant API must refuse that are out and not answered yet: each may still be charged, so the cap
   * counts them until their answer says otherwise (refusals go side by side).
   */
  pending?: number;
  /** trx_ids whose invite got no answer: never sent again. */
  unknown: string[];
  /** Classes whose refusal was accepted: they send no more invites that could be charged. */
  closed: InviteIntent['clause'][];
  /** Invites a conformant API carries out that were answered ok true (oldest first): trx_id and answer body. */
  carriedOut: CarriedOut[];
  /** The price of one invite, as a balance read before and after one showed it. */
  price?: number;
}

/** One change of the ledger, a line of its file: the fields it set (their new values), and an invite carried out. */
type LedgerChange = Partial<LedgerState> & { carried?: CarriedOut };

/**
 * Whether an ok-true answer to an invite with a used trx_id is the first invite's answer again (an idempotent
 * replay, which INV-5 allows): it echoes the trx_id and names another member than this request's. Such an answer
 * carried nothing out for this request: it is not charged, and INV-2 (this request's number) does not judge it.
 */
export function replaysAnother(api: ApiModel, params: Params, ex: Exchange): boolean {
  const body = bodyOf(ex);
  const sent = api.foldRequest('invite-member', params).params;
  const member = (body?.detail as { member?: unknown } | undefined)?.member;
  return (
    body?.ok === true &&
    body.trx_id === sent.trx_id &&
    typeof member === 'string' &&
    sent.msisdn !== undefined &&
    to62(member) !== to62(sent.msisdn)
  );
}

/**
 * An invite the ledger will not let go out, and why: `cap`, the invite cap (the user's choice: the scenario is
 * skipped); `unknown`, its trx_id got no answer before; `closed`, its class saw a refusal accepted (the scenario
 * could not judge: inconclusive).
 */
export class NotSent extends Error {
  constructor(
    message: string,
    readonly why: 'cap' | 'unknown' | 'closed',
  ) {
    super(message);
  }
}

/**
 * The run's invite budget (`--max-invites`). Every invite a conformant API would carry out counts when sent;
 * an invite a conformant API must refuse counts only if it is accepted, or if no answer came; once the cap is
 * reached nothing that could be charged goes out. A trx_id whose invite got no answer is never sent again,
 * and a class whose refusal was accepted sends no more. Refusals go side by side: each counts against the cap
 * while it is out, until its answer says it was refused. Kept in a file so that a new Playwright worker (one
 * starts after every failed test) continues the same count; every invite runs in one worker. The file is a line
 * per change, appended before the invite it admits goes out (a run writes thousands: rewriting the whole state
 * each time cost a tenth of the invite worker's time), and read by replaying the lines.
 */
export class InviteLedger {
  private state: LedgerState;
  /** Admissions waiting for refusals still out to be answered. */
  private waiting: (() => void)[] = [];

  constructor(
    cap: number,
    private readonly file?: string,
  ) {
    this.state = { cap, charged: 0, unknown: [], closed: [], carriedOut: [] };
    const text = file ? readWholeLines(file) : undefined;
    // Every line, each a whole JSON object: a line that is not stops the run, as a file that cannot be read.
    for (const line of text?.split('\n') ?? []) {
      if (!line) continue;
      const { carried, ...fields } = JSON.parse(line) as LedgerChange;
      Object.assign(this.state, fields);
      if (carried) this.state.carriedOut.push(carried);
    }
    // Refusals still out when the ledger was last written may have been cut off (a test that timed out): if this
    // worker is to send, their answers will never be read here, so they may have been charged. Counted so here,
    // and written with this worker's next change of the count (admit, settle, reopen write charged and pending): a
    // worker that only reads, started while the invite worker has refusals out, must not rewrite the invite
    // worker's count with its own view of it.
    this.state.charged += this.state.pending ?? 0;
    this.state.pending = 0;
  }

  /** Appends the new values of these fields (and an invite carried out): one line, one write. */
  private save(fields: readonly (keyof LedgerState)[], carried?: CarriedOut): void {
    if (!this.file) return;
    const change: LedgerChange = Object.fromEntries(fields.map((f) => [f, this.state[f]]));
    if (carried) change.carried = carried;
    appendFileSync(this.file, `${JSON.stringify(change)}\n`, { mode: 0o600 });
  }

  get charged(): number {
    return this.state.charged;
  }

  get cap(): number {
    return this.state.cap;
  }

  /** Throws NotSent when an invite of this intent and trx_id may not go out whatever the room. */
  ensureAllowed(intent: InviteIntent, trxId: string | undefined): void {
    if (trxId !== undefined && this.state.unknown.includes(trxId))
      throw new NotSent(
        `an invite with this trx_id got no answer and may have been charged: it is never sent again`,
        'unknown',
      );
    if (intent.expect === 'refusal' && this.state.closed.includes(intent.clause))
      throw new NotSent(
        `an invite that ${intent.clause} says must be refused was accepted earlier: that class sends no more invites`,
        'closed',
      );
  }

  /** Throws NotSent unless `count` more invites could all be charged without passing the cap. */
  admitRoom(count: number): void {
    const out = this.state.pending ?? 0;
    if (this.state.charged + out + count > this.state.cap)
      throw new NotSent(
        `the invite cap is reached (${this.state.charged} of --max-invites ${this.state.cap} may have been charged${out ? `, ${out} more still unanswered` : ''})`,
        'cap',
      );
  }

  /**
   * Lets these invites go out together, once they fit beside the refusals still out (it waits for their answers),
   * or throws NotSent: a rule forbids one, or they could never all fit under the cap.
   */
  async admitAll(invites: readonly { intent: InviteIntent; trxId: string | undefined }[]): Promise<void> {
    for (;;) {
      for (const i of invites) this.ensureAllowed(i.intent, i.trxId);
      if (this.state.charged + invites.length > this.state.cap) this.admitRoom(invites.length);
      if (this.state.charged + (this.state.pending ?? 0) + invites.length <= this.state.cap) {
        for (const i of invites) this.admit(i.intent, i.trxId);
        return;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /**
   * Lets `count` invites with this intent and trx_id go out, or throws NotSent. `success` invites are
   * counted now: a conformant API charges them whatever follows.
   */
  admit(intent: InviteIntent, trxId: string | undefined, count = 1): void {
    this.ensureAllowed(intent, trxId);
    this.admitRoom(count);
    if (intent.expect === 'success') this.state.charged += count;
    else this.state.pending = (this.state.pending ?? 0) + count;
    this.save(['charged', 'pending']);
  }

  /**
   * Takes back what `count` accepted invites of a refusal class counted, once their clause was judged and holds:
   * they were legal (a repeat answered as an idempotent replay, which INV-5 allows when nothing was charged
   * twice), so the class sends again and the cap gets the room back.
   */
  reopen(clause: InviteIntent['clause'], count: number): void {
    this.state.closed = this.state.closed.filter((c) => c !== clause);
    this.state.charged = Math.max(0, this.state.charged - count);
    this.save(['closed', 'charged', 'pending']);
  }

  /** This run's invites that were carried out (answered ok true), oldest first. */
  get carriedOut(): readonly CarriedOut[] {
    return this.state.carriedOut;
  }

  /** The price of one invite, once a balance read before and after one showed it. */
  get price(): number | undefined {
    return this.state.price;
  }

  /** Notes an invite a conformant API carries out that was answered ok true. */
  noteCarriedOut(carried: CarriedOut): void {
    if (this.state.carriedOut.some((c) => c.trxId === carried.trxId)) return;
    this.state.carriedOut.push(carried);
    this.save([], carried);
  }

  /** Notes the price of one invite, as a balance read showed it. */
  notePrice(price: number): void {
    this.state.price = price;
    this.save(['price']);
  }

  /** Records what became of an admitted invite (each once). */
  settle(intent: InviteIntent, trxId: string | undefined, outcome: InviteOutcome): void {
    if (outcome === 'unknown' && trxId !== undefined) this.state.unknown.push(trxId);
    if (intent.expect === 'refusal') this.state.pending = Math.max(0, (this.state.pending ?? 0) - 1);
    for (const wake of this.waiting.splice(0)) wake();
    if (intent.expect === 'refusal' && outcome !== 'refused') {
      this.state.charged += 1;
      if (outcome === 'accepted' && !this.state.closed.includes(intent.clause)) this.state.closed.push(intent.clause);
    }
    this.save(['unknown', 'pending', 'charged', 'closed']);
  }
}

/** How long a reader waits for another worker's line to be written whole before it calls the file broken. */
const LINE_IN_FLIGHT_MS = 2000;
/** What a reader blocks on between reads (nothing ever wakes it: Atomics.wait as a synchronous pause). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * The ledger file's text, up to its last whole line, or undefined when it was not written yet. Another worker may be
 * appending a line while this one reads (every worker of a run reads the file when its test starts): a read can end
 * inside that line. It is read again until the text ends on a newline; a line that stays cut off (a file no worker
 * wrote) stops the run, as a file that cannot be read: the ledger never starts from less than was written.
 */
function readWholeLines(file: string): string | undefined {
  const deadline = Date.now() + LINE_IN_FLIGHT_MS;
  for (;;) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    if (text === '' || text.endsWith('\n') || Date.now() > deadline) return text;
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

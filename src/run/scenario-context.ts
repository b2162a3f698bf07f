import { TransportError } from '../client/transport.js';
import { bodyOf, records, saldoOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { numberForm } from '../openapi/numbers.js';
import { sentValue } from '../openapi/shape.js';
import type { ClauseId, Exchange, Method, Params } from '../openapi/types.js';
import type { GeneratedCase } from '../plan/generators/cases.js';
import { type Observation, showExchange } from '../plan/observations.js';
import type { NotRun } from '../plan/plan.js';
import { compareLimit } from '../plan/sampling.js';
import {
  allAnswered,
  type Judgement,
  judge,
  NotJudged,
  PreconditionFailed,
  type ScenarioContext,
  type SendOptions,
  type SettlePace,
} from '../plan/scenario.js';
import {
  type InviteIntent,
  type InviteOutcome,
  isGuard,
  NotSent,
  refusalExpected,
  replaysAnother,
} from '../target/invite-ledger.js';
import { PaceLost } from '../target/pace.js';
import { MaybeCarriedOut, RateLimited, sendUnderPolicy, type TrafficNotes } from '../target/send-policy.js';
import type { RunDeps } from './run-deps.js';

/** What a scenario sent and saw while it ran: the verdict step (verdict.ts) judges from this. */
export interface Recording {
  /** Every answer it received (quiet ones only when a generated case adopted them), in order. */
  exchanges: Exchange[];
  /** Quiet answers (a property's exploration): judged only when adopted, and the provider's vocabulary learns from all. */
  quiet: Exchange[];
  /** Generated cases and their answers: judged by judgeCase, not again with the rest. */
  generated: Map<Exchange, GeneratedCase>;
  /** Guarded invites answered as a replay of the first invite of their trx_id: INV-2 does not judge them. */
  replays: Set<Exchange>;
  /** Answers to invites a clause says must be refused: judged by that clause (and the envelope's) only. */
  mustRefuse: Set<Exchange>;
  /** Answers to guarded invites (a used trx_id, a product that cannot exist): refused, they judge nothing else. */
  guarded: Set<Exchange>;
  /** Refusal-intent invites seen accepted, by class: taken back if the class's clause holds. */
  acceptedRefusals: Map<InviteIntent['clause'], number>;
  notes: TrafficNotes;
  observations: Observation[];
  invitesSent: number;
  /**
   * What this scenario's invites counted against the cap (charged, or maybe charged), less what was taken back.
   * Its own count: scenarios that run side by side share the ledger.
   */
  invitesCharged: number;
  /** Clauses quiet requests were judged by and kept (a property that found nothing). */
  judgedQuietly: Set<ClauseId>;
  /** The longest settle, in milliseconds. */
  settleMs?: number;
  /** Judgements the context made itself: INV-5 on a guarded invite that was carried out. */
  judgements: Judgement[];
  /** trx_ids of its invites that got no answer (a timeout, a reset, a 503): they may have been charged. */
  lost: string[];
}

/** The name an invite's trx_id went under. */
function trxNameIn(api: ApiModel, params: Params): string {
  return api.foldRequest('invite-member', params).sentAs.trx_id?.[0] ?? 'trx_id';
}

/** What an invite sent: each parameter's value under its canonical name, as it went over the wire; no key. */
function sentValues(api: ApiModel, ex: Exchange): Record<string, unknown> {
  const { sentAs } = api.foldRequest('invite-member', ex.params);
  const out: Record<string, unknown> = {};
  for (const p of api.operation('invite-member').params) {
    const v = p.role === 'secret' ? undefined : sentValue(sentAs, ex.params, p.name, ex.method);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

/**
 * How an invite was sent, each a trait: its method, the name each parameter went under (or that it was absent),
 * the form of its number. The checks of what invites wrote take one invite of each (lookup.ts).
 */
function sentHow(api: ApiModel, ex: Exchange): string[] {
  const { sentAs, params } = api.foldRequest('invite-member', ex.params);
  const names = api.operation('invite-member').params.map((p) => {
    const as = sentAs[p.name] ?? [];
    return as.length ? `${p.name} as ${as.join('+')}` : `${p.name} absent`;
  });
  return [`by ${ex.method}`, ...names, `msisdn ${numberForm(params.msisdn)}-form`];
}

/**
 * Whether an invite that failed surely charged nothing: still rate-limited by 429s (only a 429 says it was not
 * carried out), or the run's pace lost before it went (an invite is sent again only after nothing was sent, or
 * after a 429). Anything else may have been charged.
 */
function notCarriedOut(err: unknown): boolean {
  return (err instanceof RateLimited && !(err instanceof MaybeCarriedOut)) || err instanceof PaceLost;
}

/** The invite's trx_id, whichever name carried it. */
function inviteTrxId(api: ApiModel, params: Params): string | undefined {
  const v = api.foldRequest('invite-member', params).params.trx_id;
  return v === undefined ? undefined : String(v);
}

/** A recording with nothing in it yet. */
function emptyRecording(): Recording {
  return {
    exchanges: [],
    quiet: [],
    generated: new Map(),
    replays: new Set(),
    mustRefuse: new Set(),
    guarded: new Set(),
    acceptedRefusals: new Map(),
    notes: { flaky: [], waits: [] },
    observations: [],
    invitesSent: 0,
    invitesCharged: 0,
    judgedQuietly: new Set(),
    judgements: [],
    lost: [],
  };
}

type InviteRequest = { method: Method; params: Params };

/**
 * One scenario's traffic and what it learns on the way: every request through the send policy, every invite
 * through the ledger, each answer into the recording. Two facts of the account are learned as it goes (see
 * buildContext): the price of one invite, and whether the balance explains a refusal.
 */
class ScenarioTraffic {
  readonly recording = emptyRecording();
  /** The last balance read, and the invites carried out since it: a drop after exactly one is its price. */
  private lastSaldo: number | undefined;
  private carriedSince = 0;
  /** The parameters (folded) of each invite this scenario had carried out, by trx_id: what a repeat repeats. */
  private readonly firstInvites = new Map<string, string>();

  constructor(
    private readonly title: string,
    private readonly deps: RunDeps,
  ) {}

  private get api(): ApiModel {
    return this.deps.api;
  }

  private get ledger(): RunDeps['ledger'] {
    return this.deps.ledger;
  }

  /** A balance read: a drop after exactly one invite carried out since the last read is the price of one. */
  private learn(ex: Exchange): void {
    const saldo = saldoOf(ex);
    if (ex.endpoint !== 'saldo-user' || saldo === undefined) return;
    if (this.lastSaldo !== undefined && saldo < this.lastSaldo && this.carriedSince === 1)
      this.ledger.notePrice(this.lastSaldo - saldo);
    // A balance that has not moved yet may still show the charge of the invites since (a provider may charge late).
    if (saldo !== this.lastSaldo) {
      this.lastSaldo = saldo;
      this.carriedSince = 0;
    }
  }

  async send(
    endpoint: Exchange['endpoint'],
    method: Method,
    params: Params,
    opts: SendOptions & { kept?: boolean } = {},
    policy = this.deps.policy,
  ): Promise<Exchange> {
    const { notes } = this.recording;
    const how = { ...(opts.body ? { body: opts.body } : {}), ...(opts.kept ? { kept: true } : {}) };
    const ex = await sendUnderPolicy(this.deps.raw, endpoint, method, params, policy, notes, how);
    if (opts.quiet) this.recording.quiet.push(ex);
    else this.recording.exchanges.push(ex);
    if (opts.mustRefuse) this.recording.mustRefuse.add(ex);
    this.learn(ex);
    return ex;
  }

  private settleInvite(intent: InviteIntent, trx: string | undefined, outcome: InviteOutcome): void {
    this.ledger.settle(intent, trx, outcome);
    const rec = this.recording;
    if (outcome === 'unknown' && trx !== undefined) rec.lost.push(trx);
    if (intent.expect === 'refusal' && outcome !== 'refused') rec.invitesCharged++;
    if (intent.expect === 'refusal' && outcome === 'accepted')
      rec.acceptedRefusals.set(intent.clause, (rec.acceptedRefusals.get(intent.clause) ?? 0) + 1);
  }

  /** Admits invites that go out together (ledger.admitAll: it may wait for refusals still out). */
  async admitInvites(invites: { intent: InviteIntent; trxId: string | undefined }[]): Promise<void> {
    if (invites.some((i) => i.intent.expect === 'success') && !this.deps.target.allowWrites)
      throw new Error(`${this.title}: an invite that could succeed, without writes allowed`);
    await this.ledger.admitAll(invites);
    this.recording.invitesSent += invites.length;
    this.recording.invitesCharged += invites.filter((i) => i.intent.expect === 'success').length;
  }

  /** A fact of the provider's reading (reading.ts), with the answer that shows it. */
  readingFact(knob: string, value: string, ex?: Exchange): void {
    this.recording.observations.push({
      point: 'reading',
      knob,
      value,
      ...(ex ? { evidence: showExchange(ex) } : {}),
    });
  }

  /** An invite a conformant API carries out was refused: is the balance the reason? Then nothing can be judged. */
  private async explainRefusal(method: Method): Promise<void> {
    const read = await this.send('saldo-user', method, { api_key: this.deps.target.apiKey });
    const after = saldoOf(read);
    if (after === undefined) return;
    const price = this.ledger.price;
    const carried = this.ledger.carriedOut.length;
    if (price !== undefined && after < price) {
      this.readingFact('balance-runs-out', String(price), read);
      throw new PreconditionFailed(
        `the balance ran out after ${carried} invite(s) of this run (${after} left, one costs ${price}): top it up or lower --max-invites`,
      );
    }
    if (price === undefined && after <= 0)
      throw new PreconditionFailed(
        `the account's balance (${after}) covers no invite: top it up to judge what needs a successful invite`,
      );
  }

  async settle(
    read: () => Promise<Exchange>,
    done: (ex: Exchange) => boolean,
    pace: SettlePace = {},
  ): Promise<Exchange> {
    const { settleMs } = this.deps;
    const t0 = performance.now();
    let pause = pace.firstPauseMs ?? 50;
    let ex = await read();
    while (!done(ex) && performance.now() - t0 < settleMs) {
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(1, settleMs - (performance.now() - t0)))));
      pause = Math.min(pause * (pace.growth ?? 1.5), 500);
      ex = await read();
    }
    this.recording.settleMs = Math.max(this.recording.settleMs ?? 0, Math.round(performance.now() - t0));
    return ex;
  }

  /**
   * A guarded invite reuses a trx_id of the account's history; carried out (not a replay), it may have made a
   * second transaction of that trx_id: INV-5 is judged on history, looked at until a second record shows or the
   * settle window has passed.
   */
  private async judgeGuard(method: Method, invite: Exchange, trx: string): Promise<void> {
    const twice = (ex: Exchange): boolean => (records(ex) ?? []).filter((r) => r.trx_id === trx).length > 1;
    const { apiKey } = this.deps.target;
    const history = await this.settle(
      () => this.send('history-transaksi', method, { api_key: apiKey, q: trx, limit: compareLimit(this.deps) }),
      twice,
    );
    this.recording.judgements.push(judge('INV-5', { invite, repeats: [invite], history }));
  }

  /** An invite carried out: the ledger keeps it (lookups of what it wrote), and the next balance drop prices it. */
  private carriedOut(trx: string | undefined, params: Params, ex: Exchange): void {
    if (trx !== undefined)
      this.ledger.noteCarriedOut({
        trxId: trx,
        sentAs: trxNameIn(this.api, params),
        body: ex.body,
        sent: sentValues(this.api, ex),
        how: sentHow(this.api, ex),
      });
    this.carriedSince++;
  }

  /**
   * A used trx_id sent again: refused, or answered with its first answer (the reading's `repeat`). A refusal
   * says so only of the same invite again, with nothing else wrong: a provider that answers a repeat as a replay
   * refuses the same trx_id with another member, and a guarded one may be refused for its product alone.
   */
  private readRepeat(params: Params, intent: InviteIntent, ex: Exchange, replay: boolean): void {
    if (intent.clause !== 'used-trx' && !(intent.clause === 'INV-5' && intent.expect === 'refusal')) return;
    const ok = bodyOf(ex)?.ok === true;
    const folded = this.api.foldRequest('invite-member', params);
    const trx = inviteTrxId(this.api, params);
    const again =
      folded.problems.length === 0 && trx !== undefined && this.firstInvites.get(trx) === JSON.stringify(folded.params);
    if (ok ? replay : again) this.readingFact('repeat', ok ? 'replay' : 'refuse', ex);
  }

  /** Sends one admitted invite, settles it in the ledger, and learns what its answer tells. */
  async sendInvite(method: Method, params: Params, intent: InviteIntent, opts: SendOptions = {}): Promise<Exchange> {
    const trx = inviteTrxId(this.api, params);
    let ex: Exchange;
    try {
      // One the run expects refused may share a kept connection (httpSend); one it means to carry out has its own.
      ex = await this.send('invite-member', method, params, { ...opts, kept: intent.expect === 'refusal' });
    } catch (err) {
      this.settleInvite(intent, trx, notCarriedOut(err) ? 'refused' : 'unknown');
      throw err;
    }
    // An invite of a used trx_id (a guarded one, an INV-5 repeat) answered with the first invite's answer, another
    // member's, is a replay: it carried nothing out.
    const replay = intent.expect === 'refusal' && replaysAnother(this.api, params, ex);
    if (replay) this.recording.replays.add(ex);
    const ok = bodyOf(ex)?.ok === true;
    this.readRepeat(params, intent, ex, replay);
    if (refusalExpected(intent)) this.recording.mustRefuse.add(ex);
    if (isGuard(intent)) this.recording.guarded.add(ex);
    this.settleInvite(intent, trx, ok && !replay ? 'accepted' : 'refused');
    if (intent.clause === 'used-trx' && ok && !replay && trx !== undefined) await this.judgeGuard(method, ex, trx);
    if (intent.expect === 'success' && ok) this.carriedOut(trx, params, ex);
    if (intent.expect === 'success' && ok && trx !== undefined)
      this.firstInvites.set(trx, JSON.stringify(this.api.foldRequest('invite-member', params).params));
    if (intent.expect === 'success' && !ok) await this.explainRefusal(method);
    return ex;
  }

  /**
   * One invite sent several times at once (ScenarioContext.inviteAll): one copy counted as the invite carried
   * out, the others as refusals of `clause`, each settled once by what its answer says.
   */
  async inviteAll(requests: InviteRequest[], clause: ClauseId): Promise<Exchange[]> {
    const trx = inviteTrxId(this.api, requests[0]?.params ?? {});
    const refusal: InviteIntent = { expect: 'refusal', clause };
    await this.admitInvites([
      { intent: { expect: 'success', clause }, trxId: trx },
      ...requests.slice(1).map(() => ({ intent: refusal, trxId: trx })),
    ]);
    const settled = await this.sendTogether(requests, () => {
      // Nothing went out: the refusals are settled as such (the one counted as carried out stays counted).
      for (let i = 1; i < requests.length; i++) this.settleInvite(refusal, trx, 'refused');
    });
    const accepted = this.settleCopies(settled, trx, clause);
    const first = settled.find(
      (x): x is PromiseFulfilledResult<Exchange> => x.status === 'fulfilled' && bodyOf(x.value)?.ok === true,
    );
    if (first) this.carriedOut(trx, first.value.params, first.value);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (accepted === 0) await this.explainRefusal(requests[0]?.method ?? 'POST');
    return settled.map((s) => (s as PromiseFulfilledResult<Exchange>).value);
  }

  /**
   * Sends the copies at once: their slots of the run's pace are taken together (all of them if there are more
   * copies), and the copies go without waiting for a turn of their own. `unsent` runs if the pace is lost first.
   */
  private async sendTogether(requests: InviteRequest[], unsent: () => void): Promise<PromiseSettledResult<Exchange>[]> {
    let release: (() => void) | undefined;
    try {
      release = await this.deps.policy.pace?.acquire(requests.length);
    } catch (err) {
      unsent();
      throw err;
    }
    const together = { ...this.deps.policy, pace: undefined };
    return Promise.allSettled(
      requests.map((r) => this.send('invite-member', r.method, r.params, {}, together)),
    ).finally(release);
  }

  /**
   * One copy was counted as the invite carried out, the others as refusals: each of those is settled once, by
   * the copies accepted past the first, the copies that may have been carried out, and the rest refused.
   * Returns how many copies were accepted.
   */
  private settleCopies(settled: PromiseSettledResult<Exchange>[], trx: string | undefined, clause: ClauseId): number {
    const refusal: InviteIntent = { expect: 'refusal', clause };
    let accepted = 0;
    let refusals = settled.length - 1;
    const outcome = (what: InviteOutcome): void => {
      if (refusals > 0) {
        refusals--;
        this.settleInvite(refusal, trx, what);
      } else if (what === 'unknown') this.settleInvite({ expect: 'success', clause }, trx, what);
    };
    for (const s of settled) {
      if (s.status === 'rejected') {
        if (!notCarriedOut(s.reason)) outcome('unknown');
      } else if (bodyOf(s.value)?.ok === true && ++accepted > 1) outcome('accepted');
    }
    while (refusals > 0) outcome('refused');
    return accepted;
  }

  /** An accepted invite of a used trx_id proven a replay: nothing carried out, its class and the cap get it back. */
  wasReplay(ex: Exchange, clause: ClauseId): void {
    const rec = this.recording;
    rec.replays.add(ex);
    this.readingFact('repeat', 'replay', ex);
    const n = rec.acceptedRefusals.get(clause) ?? 0;
    if (n > 0) rec.acceptedRefusals.set(clause, n - 1);
    this.ledger.reopen(clause, 1);
    rec.invitesCharged--;
  }
}

/**
 * The context one scenario runs with, and the recording it fills. Every request goes through the send policy;
 * every invite through the ledger. Two facts of the account are learned on the way, so that a refusal the
 * account's state explains is never taken for a breach: the price of one invite (a balance read that dropped
 * after exactly one invite was carried out), and, when an invite a conformant API carries out is refused, the
 * balance right after it: below the price seen (or nothing left), the scenario is inconclusive, not failed.
 */
export function buildContext(
  title: string,
  form: ScenarioContext['form'],
  deps: RunDeps,
): {
  ctx: ScenarioContext;
  recording: Recording;
} {
  const { api, ledger } = deps;
  const t = new ScenarioTraffic(title, deps);
  const { recording } = t;
  const ctx: ScenarioContext = {
    target: deps.target,
    data: deps.data,
    form,
    generation: deps.generation,
    charges: deps.charges,
    newTrxId: deps.newTrxId,
    send: (endpoint, method, params, opts) => t.send(endpoint, method, params, opts),
    async invite(method, params, intent, opts) {
      await t.admitInvites([{ intent, trxId: inviteTrxId(api, params) }]);
      return t.sendInvite(method, params, intent, opts);
    },
    generated(c, ex) {
      recording.generated.set(ex, c);
      if (!recording.exchanges.includes(ex)) recording.exchanges.push(ex);
    },
    async inviteBatch(requests) {
      await t.admitInvites(requests.map((r) => ({ intent: r.intent, trxId: inviteTrxId(api, r.params) })));
      // Every one settled before the scenario goes on, even when one fails.
      return allAnswered(requests.map((r) => t.sendInvite(r.method, r.params, r.intent)));
    },
    inviteAll: (requests, clause) => t.inviteAll(requests, clause),
    settle: (read, done, pace) => t.settle(read, done, pace),
    noteJudged(clauses) {
      for (const c of clauses) recording.judgedQuietly.add(c);
    },
    observe(o) {
      recording.observations.push(o);
    },
    ownInvites: () => ledger.carriedOut,
    wasReplay: (ex, clause) => t.wasReplay(ex, clause),
  };
  return { ctx, recording };
}

/** Why a scenario stopped before it judged: skipped (the user's choice), or inconclusive (it could not). */
export function stoppedBy(err: unknown): NotRun | undefined {
  if (err instanceof TransportError)
    return { status: 'inconclusive', kind: 'no-answer', reason: `no answer: ${err.reason}: ${err.message}` };
  if (err instanceof NotSent)
    return err.why === 'cap'
      ? { status: 'skipped', kind: 'invite-cap', reason: err.message }
      : { status: 'inconclusive', kind: 'invite-barred', reason: err.message };
  if (err instanceof PreconditionFailed) return { status: 'inconclusive', kind: 'precondition', reason: err.message };
  if (err instanceof NotJudged) return { status: 'skipped', kind: 'nothing-to-judge', reason: err.message };
  // An invite answered 503: it may have been carried out, as with no answer at all.
  if (err instanceof MaybeCarriedOut) return { status: 'inconclusive', kind: 'no-answer', reason: err.message };
  if (err instanceof RateLimited)
    return {
      status: 'inconclusive',
      kind: 'rate-limit',
      reason: `${err.message}: raise --max-wait, or lower --rate-limit`,
    };
  return undefined;
}

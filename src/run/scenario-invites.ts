import { bodyOf, records, saldoOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { numberForm } from '../openapi/numbers.js';
import { sentValue } from '../openapi/shape.js';
import type { ClauseId, Exchange, Method, Params } from '../openapi/types.js';
import { compareLimit } from '../plan/sampling.js';
import { judge, PreconditionFailed, type SendOptions } from '../plan/scenario.js';
import {
  type InviteIntent,
  type InviteOutcome,
  isGuard,
  refusalExpected,
  replaysAnother,
} from '../target/invite-ledger.js';
import { PaceLost } from '../target/pace.js';
import { MaybeCarriedOut, RateLimited } from '../target/send-policy.js';
import type { Recording } from './recording.js';
import type { RunDeps } from './run-deps.js';
import type { InviteRequest, ScenarioTraffic } from './scenario-traffic.js';

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
export function inviteTrxId(api: ApiModel, params: Params): string | undefined {
  const v = api.foldRequest('invite-member', params).params.trx_id;
  return v === undefined ? undefined : String(v);
}

/**
 * One scenario's invites: each through the ledger (admitted, then settled by what its answer says), sent through
 * the scenario's traffic, and what its answer tells: whether it repeated a used trx_id as a replay, whether a
 * guarded one made a second transaction (INV-5), and, when an invite a conformant API carries out is refused,
 * whether the balance explains it.
 */
export class ScenarioInvites {
  /** The parameters (folded) of each invite this scenario had carried out, by trx_id: what a repeat repeats. */
  private readonly firstInvites = new Map<string, string>();

  constructor(
    private readonly title: string,
    private readonly deps: RunDeps,
    private readonly traffic: ScenarioTraffic,
  ) {}

  private get api(): ApiModel {
    return this.deps.api;
  }

  private get ledger(): RunDeps['ledger'] {
    return this.deps.ledger;
  }

  private get recording(): Recording {
    return this.traffic.recording;
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

  /** An invite a conformant API carries out was refused: is the balance the reason? Then nothing can be judged. */
  private async explainRefusal(method: Method): Promise<void> {
    const read = await this.traffic.send('saldo-user', method, { api_key: this.deps.target.apiKey });
    const after = saldoOf(read);
    if (after === undefined) return;
    const price = this.ledger.price;
    const carried = this.ledger.carriedOut.length;
    if (price !== undefined && after < price) {
      this.traffic.readingFact('balance-runs-out', String(price), read);
      throw new PreconditionFailed(
        `the balance ran out after ${carried} invite(s) of this run (${after} left, one costs ${price}): top it up or lower --max-invites`,
      );
    }
    if (price === undefined && after <= 0)
      throw new PreconditionFailed(
        `the account's balance (${after}) covers no invite: top it up to judge what needs a successful invite`,
      );
  }

  /**
   * A guarded invite reuses a trx_id of the account's history; carried out (not a replay), it may have made a
   * second transaction of that trx_id: INV-5 is judged on history, looked at until a second record shows or the
   * settle window has passed.
   */
  private async judgeGuard(method: Method, invite: Exchange, trx: string): Promise<void> {
    const twice = (ex: Exchange): boolean => (records(ex) ?? []).filter((r) => r.trx_id === trx).length > 1;
    const { apiKey } = this.deps.target;
    const history = await this.traffic.settle(
      () => this.traffic.send('history-transaksi', method, { api_key: apiKey, q: trx, limit: compareLimit(this.deps) }),
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
    this.traffic.noteCarriedOut();
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
    if (ok ? replay : again) this.traffic.readingFact('repeat', ok ? 'replay' : 'refuse', ex);
  }

  /** Sends one admitted invite, settles it in the ledger, and learns what its answer tells. */
  async sendInvite(method: Method, params: Params, intent: InviteIntent, opts: SendOptions = {}): Promise<Exchange> {
    const trx = inviteTrxId(this.api, params);
    let ex: Exchange;
    try {
      // One the run expects refused may share a kept connection (httpSend); one it means to carry out has its own.
      ex = await this.traffic.send('invite-member', method, params, { ...opts, kept: intent.expect === 'refusal' });
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
    const settled = await this.traffic.sendTogether(requests, () => {
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
    this.traffic.readingFact('repeat', 'replay', ex);
    const n = rec.acceptedRefusals.get(clause) ?? 0;
    if (n > 0) rec.acceptedRefusals.set(clause, n - 1);
    this.ledger.reopen(clause, 1);
    rec.invitesCharged--;
  }
}

import { TransportError } from '../client/transport.js';
import type { NotRun } from '../plan/plan.js';
import { allAnswered, NotJudged, PreconditionFailed, type ScenarioContext } from '../plan/scenario.js';
import { NotSent } from '../target/invite-ledger.js';
import { MaybeCarriedOut, RateLimited } from '../target/send-policy.js';
import type { Recording } from './recording.js';
import type { RunDeps } from './run-deps.js';
import { inviteTrxId, ScenarioInvites } from './scenario-invites.js';
import { ScenarioTraffic } from './scenario-traffic.js';

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
  const traffic = new ScenarioTraffic(deps);
  const invites = new ScenarioInvites(title, deps, traffic);
  const { recording } = traffic;
  const ctx: ScenarioContext = {
    target: deps.target,
    data: deps.data,
    form,
    generation: deps.generation,
    charges: deps.charges,
    newTrxId: deps.newTrxId,
    send: (endpoint, method, params, opts) => traffic.send(endpoint, method, params, opts),
    async invite(method, params, intent, opts) {
      await invites.admitInvites([{ intent, trxId: inviteTrxId(api, params) }]);
      return invites.sendInvite(method, params, intent, opts);
    },
    generated(c, ex) {
      recording.generated.set(ex, c);
      if (!recording.exchanges.includes(ex)) recording.exchanges.push(ex);
    },
    async inviteBatch(requests) {
      await invites.admitInvites(requests.map((r) => ({ intent: r.intent, trxId: inviteTrxId(api, r.params) })));
      // Every one settled before the scenario goes on, even when one fails.
      return allAnswered(requests.map((r) => invites.sendInvite(r.method, r.params, r.intent)));
    },
    inviteAll: (requests, clause) => invites.inviteAll(requests, clause),
    settle: (read, done, pace) => traffic.settle(read, done, pace),
    noteJudged(clauses) {
      for (const c of clauses) recording.judgedQuietly.add(c);
    },
    observe(o) {
      recording.observations.push(o);
    },
    ownInvites: () => ledger.carriedOut,
    wasReplay: (ex, clause) => invites.wasReplay(ex, clause),
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

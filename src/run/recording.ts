import type { ClauseId, Exchange } from '../openapi/types.js';
import type { GeneratedCase } from '../plan/generators/cases.js';
import type { Observation } from '../plan/observations.js';
import type { Judgement } from '../plan/scenario.js';
import type { InviteIntent } from '../target/invite-ledger.js';
import type { TrafficNotes } from '../target/send-policy.js';

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

/** A recording with nothing in it yet. */
export function emptyRecording(): Recording {
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

import type { Evidence } from '../checks/types.js';
import type { RawBody } from '../client/client.js';
import { bodyOf, records, saldoOf } from '../openapi/exchange.js';
import type { ClauseId, Endpoint, Exchange, Method, Params, ReadOnlyEndpoint } from '../openapi/types.js';
import type { CarriedOut, InviteIntent } from '../target/invite-ledger.js';
import type { GateTarget, TargetData } from '../target/target.js';
import type { GeneratedCase } from './generators/generated-case.js';
import type { Observation } from './observations.js';

/** Playwright files of the gate, one per area (suites/<area>.spec.ts), and the catalogue files beside them. */
export const AREAS = ['envelope', 'auth', 'balance', 'history', 'lookup', 'invite'] as const;
export type Area = (typeof AREAS)[number];

/** One clause to judge on one piece of evidence. */
export interface Judgement {
  clause: ClauseId;
  evidence: Evidence;
}

/**
 * How an invite scenario runs. `write`: with writes allowed, fresh trx_ids and the configured product, so a
 * conformant API carries out what it should. `safe`: a used trx_id and a product that cannot exist, so no
 * contract-keeping API can charge anything. Scenarios that send no invite always run as `write`.
 */
export type Form = 'write' | 'safe';

/** How a scenario uses invite-member. */
export interface InviteUse {
  /** Invites in the `write` form that a conformant API carries out (and charges). 0 for a refusal scenario. */
  writes: number;
  /** In the `write` form, invites it sends that a conformant API must refuse but that could be charged. */
  risk: number;
  /** Order among writing scenarios when the cap cannot fit them all (lower runs first). */
  priority: number;
  /** Whether it has a `safe` form. Without one it needs writes. */
  safe: boolean;
}

/** What a scenario needs from the target's own data. */
export type Need = 'history' | 'known-trx';

/** How often settle reads again: the first pause, and how much each pause grows (50 ms, 1.5 by default). */
export interface SettlePace {
  firstPauseMs?: number;
  growth?: number;
}

/** How a request is sent: `quiet` ones (a property's exploration) are judged only if adopted by `generated`. */
export interface SendOptions {
  quiet?: boolean;
  /**
   * A clause says this request must be refused (a wrong key, say): its answer is that clause's to judge and the
   * envelope's, never the endpoint's success clauses (an answer without the envelope is ENV-1's breach, not BAL-1's).
   */
  mustRefuse?: boolean;
  /** POST only: this body as it is, in place of the parameters as JSON (a malformed body, another media type). */
  body?: RawBody;
}

/** What a scenario can do while it runs. Every answer it gets is also judged by every clause that applies. */
export interface ScenarioContext {
  target: GateTarget;
  data: TargetData;
  form: Form;
  /** The seed and size of the generated phases (`--seed`, `--examples`). */
  generation: { seed: number; examples: number };
  /** How long after its answer an invite's charge was seen to land, at most (shared by the run's scenarios). */
  charges: { delayMs: number };
  /** A fresh transaction ID, unique to this run. */
  newTrxId(): string;
  /** Sends a read (or a request bound to be refused) to an endpoint other than invite-member. */
  send(endpoint: ReadOnlyEndpoint, method: Method, params: Params, opts?: SendOptions): Promise<Exchange>;
  /** Sends an invite, within the run's invite budget: throws NotSent when the ledger says no. */
  invite(method: Method, params: Params, intent: InviteIntent, opts?: SendOptions): Promise<Exchange>;
  /** Marks an answer as a generated case's: judged by what the clauses say of it, saved if it fails. */
  generated(c: GeneratedCase, ex: Exchange): void;
  /**
   * Sends a batch of invites at once, each one its own intent: the ledger admits the batch only if the cap holds
   * were every refusal in it accepted, and refuses it (NotSent) when a class in it already saw an acceptance.
   */
  inviteBatch(requests: { method: Method; params: Params; intent: InviteIntent }[]): Promise<Exchange[]>;
  /**
   * Sends one invite several times at once, as a client's retry while the first is in flight: a conformant API
   * carries out one (counted now) and must refuse the others (counted if accepted, as refusals of `clause`).
   */
  inviteAll(requests: { method: Method; params: Params }[], clause: ClauseId): Promise<Exchange[]>;
  /** Reads again until `done` holds or the settle window (`--settle`) has passed; the time taken is noted. */
  settle(read: () => Promise<Exchange>, done: (ex: Exchange) => boolean, pace?: SettlePace): Promise<Exchange>;
  /** Notes the clauses a quiet request was judged by and kept (a property's exploration that found nothing). */
  noteJudged(clauses: readonly ClauseId[]): void;
  /** Notes what the target did on a point the provider leaves open (never a finding). */
  observe(o: Observation): void;
  /**
   * An accepted invite of a used trx_id proven a replay (the balance did not move): it carried nothing out, so it
   * is not charged against the cap and its class sends on.
   */
  wasReplay(ex: Exchange, clause: ClauseId): void;
  /** The run's own invites that were carried out so far (trx_id and answer), for lookups of what they wrote. */
  ownInvites(): readonly CarriedOut[];
}

/**
 * One scenario of the gate: a request (or a few) on an endpoint and method, with the clauses judged on what
 * came back. Generated from openapi.yaml (`x-aliases`) and the clause list, never listed by hand.
 */
export interface Scenario {
  /** Unique and human-readable: the clause ids, the endpoint, the method, the alias, then what it does. */
  title: string;
  clauses: ClauseId[];
  area: Area;
  endpoint: Endpoint;
  methods: Method[];
  /** Alias names it sends in place of canonical names. */
  aliases: string[];
  /**
   * False when it sends a request that plain OpenAPI cannot call valid: an alias name, or a value it breaks on
   * purpose. Such scenarios stay out of a run through a validation proxy (`--canonical-only`).
   * @defaultValue true when `aliases` is empty
   */
  plainOpenApi?: boolean;
  needs?: Need[];
  invite?: InviteUse;
  /** Most requests it sends (with settle polls counted as one each): its share of the test's time. */
  requests: number;
  /** Whether it reads what an invite wrote, within the settle window. */
  settles?: boolean;
  /** Made by a generator (coverage, near misses, properties, random phase, in flight), not written by hand. */
  generated?: true;
  /** Reads what the run's own invites wrote: it runs after them, and needs writes. */
  afterWrites?: true;
  /** `rerun`: a failure is saved for `h2h replay`, which runs the scenario again (it is several requests). */
  replay?: 'rerun';
  run(ctx: ScenarioContext): Promise<Judgement[]>;
}

export const judge = (clause: ClauseId, evidence: Evidence): Judgement => ({ clause, evidence });

/** How far apart two balance reads must agree, at least, for the balance to count as at rest. */
const STEADY_MS = 250;

/**
 * The balance once it has stopped moving: read until two reads agree that are further apart than the latest charge
 * the run saw land after its invite's answer (STEADY_MS at least), within ten such spans. A provider may charge some
 * time after it answers (an earlier scenario's charge landing in this one's window would look like a second
 * charge); what INV-5 compares starts and ends at rest.
 */
export async function steadySaldo(ctx: ScenarioContext, method: Method): Promise<Exchange> {
  const read = (): Promise<Exchange> => ctx.send('saldo-user', method, { api_key: ctx.target.apiKey });
  const apart = Math.max(STEADY_MS, ctx.charges.delayMs + STEADY_MS);
  let last = await read();
  const started = performance.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, apart));
    const now = await read();
    if (saldoOf(now) === saldoOf(last) || performance.now() - started > apart * 10) return now;
    last = now;
  }
}

/**
 * Reads the balance until it shows the charge of an invite just answered (below `before`), within the settle
 * window, and notes how long that took: the latest charge seen sets how long a balance must stand still.
 */
export async function chargedSaldo(ctx: ScenarioContext, method: Method, before: Exchange): Promise<Exchange> {
  const started = performance.now();
  const now = await ctx.settle(
    () => ctx.send('saldo-user', method, { api_key: ctx.target.apiKey }),
    (ex) => balanceDropped(ex, before),
  );
  if (balanceDropped(now, before))
    ctx.charges.delayMs = Math.max(ctx.charges.delayMs, Math.round(performance.now() - started));
  return now;
}

/** What one read of a date's history shows of records this run did not make. */
export interface Others {
  ids: ReadonlySet<string>;
  /** Whether the read held every record of the date (fewer than its limit and any clamp seen). */
  complete: boolean;
}

/** Records asked for when looking for another client's work on a date. */
const OTHERS_LIMIT = 100;

/**
 * The records of a date that this run did not make (`own`), as one read shows them: another client of the
 * account (production traffic on a reseller's account) invites at any time, and its charges move the balance.
 */
export async function othersOn(
  ctx: ScenarioContext,
  method: Method,
  date: string,
  own: ReadonlySet<string>,
): Promise<Others> {
  const ex = await ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, date, limit: OTHERS_LIMIT });
  const data = records(ex);
  if (!data) return { ids: new Set(), complete: false };
  const ids = data.map((r) => String(r.trx_id)).filter((id) => !own.has(id));
  const shown = (bodyOf(ex)?.data as unknown[] | undefined)?.length ?? 0;
  return { ids: new Set(ids), complete: shown < Math.min(OTHERS_LIMIT, ctx.data.pageLimit ?? OTHERS_LIMIT) };
}

/** Whether another client was at work between two reads of one date (or the reads cannot tell). */
export function othersBetween(before: Others, after: Others): boolean {
  return !before.complete || !after.complete || [...after.ids].some((id) => !before.ids.has(id));
}

/** The trx_ids this run made so far, with more of this scenario's. */
export function ownIds(ctx: ScenarioContext, ...more: unknown[]): Set<string> {
  return new Set([...ctx.ownInvites().map((o) => o.trxId), ...more.map(String)]);
}

/** Whether a balance read shows less than an earlier one: a charge has shown. */
export function balanceDropped(now: Exchange, earlier: Exchange): boolean {
  const a = saldoOf(now);
  const b = saldoOf(earlier);
  return a !== undefined && b !== undefined && a < b;
}

/** Params with one canonical name replaced by an alias. */
export function rename(params: Params, from: string, to: string): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(params)) out[k === from ? to : k] = v;
  return out;
}

/** Params without the named ones. */
export function without(params: Params, ...names: string[]): Params {
  return Object.fromEntries(Object.entries(params).filter(([k]) => !names.includes(k)));
}

/** Whether every request of a scenario is one that plain OpenAPI can call valid (see Scenario.plainOpenApi). */
export function isPlainOpenApi(s: Scenario): boolean {
  return s.plainOpenApi ?? s.aliases.length === 0;
}

/**
 * A scenario could not judge its clauses for a reason that says nothing about the contract (a successful
 * invite was refused, the balance ran out, say): reported as inconclusive with the reason, its answers still
 * judged by what applies.
 */
export class PreconditionFailed extends Error {}

/** A scenario the run's settings leave nothing to judge (no --kind for kind's alias): skipped, with the reason. */
export class NotJudged extends Error {}

/** Each answer, once every request has settled; the first failure is thrown then, never before. */
export async function allAnswered<T>(sends: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(sends);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

import { saldoOf } from '../openapi/exchange.js';
import type { Exchange, Method, Params } from '../openapi/types.js';
import { showExchange } from '../plan/observations.js';
import type { SendOptions, SettlePace } from '../plan/scenario.js';
import { sendUnderPolicy } from '../target/send-policy.js';
import { emptyRecording } from './recording.js';
import type { RunDeps } from './run-deps.js';

/** One request of several sent at once. */
export type InviteRequest = { method: Method; params: Params };

/**
 * One scenario's traffic: every request through the send policy, each answer into the recording, and what the
 * answers tell on the way: the price of one invite (a balance that dropped after exactly one was carried out), the
 * facts of the provider's reading, the settling of what an invite wrote.
 */
export class ScenarioTraffic {
  readonly recording = emptyRecording();
  /** The last balance read, and the invites carried out since it: a drop after exactly one is its price. */
  private lastSaldo: number | undefined;
  private carriedSince = 0;

  constructor(private readonly deps: RunDeps) {}

  /** A balance read: a drop after exactly one invite carried out since the last read is the price of one. */
  private learn(ex: Exchange): void {
    const saldo = saldoOf(ex);
    if (ex.endpoint !== 'saldo-user' || saldo === undefined) return;
    if (this.lastSaldo !== undefined && saldo < this.lastSaldo && this.carriedSince === 1)
      this.deps.ledger.notePrice(this.lastSaldo - saldo);
    // A balance that has not moved yet may still show the charge of the invites since (a provider may charge late).
    if (saldo !== this.lastSaldo) {
      this.lastSaldo = saldo;
      this.carriedSince = 0;
    }
  }

  /** An invite carried out: the next balance drop may price it. */
  noteCarriedOut(): void {
    this.carriedSince++;
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

  /** A fact of the provider's reading (reading.ts), with the answer that shows it. */
  readingFact(knob: string, value: string, ex?: Exchange): void {
    this.recording.observations.push({
      point: 'reading',
      knob,
      value,
      ...(ex ? { evidence: showExchange(ex) } : {}),
    });
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
   * Sends the copies at once: their slots of the run's pace are taken together (all of them if there are more
   * copies), and the copies go without waiting for a turn of their own. `unsent` runs if the pace is lost first.
   */
  async sendTogether(requests: InviteRequest[], unsent: () => void): Promise<PromiseSettledResult<Exchange>[]> {
    let release: (() => void) | undefined;
    try {
      release = await this.deps.policy.pace?.acquire(requests.length, true);
    } catch (err) {
      unsent();
      throw err;
    }
    const together = { ...this.deps.policy, pace: undefined };
    return Promise.allSettled(
      requests.map((r) => this.send('invite-member', r.method, r.params, {}, together)),
    ).finally(release);
  }
}

import { judgeClauses } from '../checks/judge.js';
import { TransportError } from '../client/transport.js';
import { bodyOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Exchange, Finding, Method, Params, ReadOnlyEndpoint } from '../openapi/types.js';
import { learnPhones, redact, redactValue } from '../redact.js';
import type { Deviation } from './config.js';
import type { GeneratedCase } from './generated/cases.js';
import { saveFailure, saveScenarioFailure } from './generated/failures.js';
import { judgeCase, judgeReceived } from './generated/judge-case.js';
import { type InviteIntent, type InviteLedger, type InviteOutcome, NotSent, replaysAnother } from './invite-ledger.js';
import type { PlannedScenario } from './plan.js';
import { PreconditionFailed, type ScenarioContext, type SendOptions } from './scenario.js';
import { findingKey, findingLines, type ScenarioResult, showExchange, skippedResult } from './scenario-result.js';
import { RateLimited, type RawSend, type SendPolicy, sendUnderPolicy, type TrafficNotes } from './send-policy.js';
import type { GateTarget, TargetData } from './target.js';

/** Everything a scenario runs with, shared by the Playwright suite and the in-process runner. */
export interface RunDeps {
  api: ApiModel;
  target: GateTarget;
  data: TargetData;
  raw: RawSend;
  policy: SendPolicy;
  ledger: InviteLedger;
  newTrxId: () => string;
  settleMs: number;
  deviations: readonly Deviation[];
  strict: boolean;
  knownStatuses?: readonly string[];
  knownHttpStatuses?: readonly number[];
  /** The seed and size of the generated phases. */
  generation: { seed: number; examples: number };
  /** Where failing generated cases are saved (reports/failures/), with what fills their placeholders. */
  failures?: { dir: string; baseUrl: string };
}

/** The invite's trx_id, whichever name carried it. */
function trxIdOf(api: ApiModel, params: Params): string | undefined {
  const v = api.foldRequest('invite-member', params).params.trx_id;
  return v === undefined ? undefined : String(v);
}

/**
 * Runs one planned scenario and judges it: its own judgements, plus every answer it received by every clause
 * a single answer can break. Findings of clauses marked as known deviations become warnings; drift fails only
 * a strict run; no answer at all fails the scenario as such; a reason that says nothing about the contract
 * (the invite cap, a rate limit past the wait cap, a refused invite that a clause needs to succeed) skips it.
 */
export async function executeScenario(entry: PlannedScenario, deps: RunDeps): Promise<ScenarioResult> {
  const { api, ledger } = deps;
  const result = skippedResult(entry, '');
  result.status = 'passed';
  delete result.skipReason;
  const exchanges: Exchange[] = [];
  const notes: TrafficNotes = { flaky: [], waits: [] };
  const chargedBefore = ledger.charged;
  const started = performance.now();
  // Generated cases and their answers: judged by judgeCase, not again with the rest.
  const generated = new Map<Exchange, GeneratedCase>();
  const send = async (
    endpoint: Exchange['endpoint'],
    method: Method,
    params: Params,
    opts: SendOptions = {},
  ): Promise<Exchange> => {
    const ex = await sendUnderPolicy(deps.raw, endpoint, method, params, deps.policy, notes);
    if (!opts.quiet) exchanges.push(ex);
    return ex;
  };
  // Guarded invites answered as a replay of the first invite of their trx_id: INV-2 does not judge them.
  const replays = new Set<Exchange>();
  // Refusal-intent invites this scenario saw accepted, by class: taken back if the class's clause holds.
  const acceptedRefusals = new Map<InviteIntent['clause'], number>();
  const settleInvite = (intent: InviteIntent, trx: string | undefined, outcome: InviteOutcome): void => {
    ledger.settle(intent, trx, outcome);
    if (intent.expect === 'refusal' && outcome === 'accepted')
      acceptedRefusals.set(intent.clause, (acceptedRefusals.get(intent.clause) ?? 0) + 1);
  };
  const admitInvite = (intent: InviteIntent, trx: string | undefined, count: number): void => {
    if (intent.expect === 'success' && !deps.target.allowWrites)
      throw new Error(`${entry.scenario.title}: an invite that could succeed, without writes allowed`);
    ledger.admit(intent, trx, count);
    result.invites.sent += count;
  };
  const sendInvite = async (
    method: Method,
    params: Params,
    intent: InviteIntent,
    opts: SendOptions = {},
  ): Promise<Exchange> => {
    const trx = trxIdOf(api, params);
    try {
      const ex = await send('invite-member', method, params, opts);
      // A guarded invite answered with the first invite's answer (a replay) carried nothing out.
      const replay = intent.clause === 'used-trx' && replaysAnother(api, params, ex);
      if (replay) replays.add(ex);
      settleInvite(intent, trx, bodyOf(ex)?.ok === true && !replay ? 'accepted' : 'refused');
      return ex;
    } catch (err) {
      if (err instanceof TransportError) settleInvite(intent, trx, 'unknown');
      throw err;
    }
  };
  const ctx: ScenarioContext = {
    target: deps.target,
    data: deps.data,
    form: entry.form,
    generation: deps.generation,
    newTrxId: deps.newTrxId,
    send: (endpoint: ReadOnlyEndpoint, method: Method, params: Params, opts?: SendOptions) =>
      send(endpoint, method, params, opts),
    async invite(method, params, intent, opts) {
      admitInvite(intent, trxIdOf(api, params), 1);
      return sendInvite(method, params, intent, opts);
    },
    generated(c, ex) {
      generated.set(ex, c);
      if (!exchanges.includes(ex)) exchanges.push(ex);
    },
    async inviteBatch(requests) {
      for (const r of requests) ledger.ensureAllowed(r.intent, trxIdOf(api, r.params));
      ledger.admitRoom(requests.length);
      for (const r of requests) admitInvite(r.intent, trxIdOf(api, r.params), 1);
      return Promise.all(requests.map((r) => sendInvite(r.method, r.params, r.intent)));
    },
    async inviteAll(requests, clause) {
      const trx = trxIdOf(api, requests[0]?.params ?? {});
      const refusal: InviteIntent = { expect: 'refusal', clause };
      admitInvite({ expect: 'success', clause }, trx, 1);
      admitInvite(refusal, trx, requests.length - 1);
      const settled = await Promise.allSettled(requests.map((r) => send('invite-member', r.method, r.params)));
      let accepted = 0;
      for (const s of settled) {
        if (s.status === 'rejected') {
          if (s.reason instanceof TransportError) settleInvite(refusal, trx, 'unknown');
        } else if (bodyOf(s.value)?.ok === true && ++accepted > 1) settleInvite(refusal, trx, 'accepted');
      }
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((s) => (s as PromiseFulfilledResult<Exchange>).value);
    },
    async settle(read, done) {
      const t0 = performance.now();
      let pause = 50;
      let ex = await read();
      while (!done(ex) && performance.now() - t0 < deps.settleMs) {
        await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(1, deps.settleMs - (performance.now() - t0)))));
        pause = Math.min(pause * 1.5, 500);
        ex = await read();
      }
      const took = Math.round(performance.now() - t0);
      result.settleMs = Math.max(result.settleMs ?? 0, took);
      return ex;
    },
  };

  let findings: Finding[] = [];
  const judged = new Set<ClauseId>();
  try {
    for (const j of await entry.scenario.run(ctx)) {
      judged.add(j.clause);
      findings.push(...judgeClauses(api, [j.clause], j.evidence));
    }
  } catch (err) {
    if (err instanceof TransportError) result.transport = redact(`${err.reason}: ${err.message}`);
    else if (err instanceof NotSent || err instanceof RateLimited || err instanceof PreconditionFailed)
      result.skipReason = redact(err.message);
    else throw new Error(redact(`${entry.scenario.title}: ${(err as Error).message}`));
  }
  const drift = new Map<string, Drift>();
  const failingCases: Exchange[] = [];
  for (const ex of exchanges) {
    const c = generated.get(ex);
    if (c) {
      const verdict = judgeCase(api, c, ex);
      for (const id of verdict.judged) judged.add(id);
      findings.push(...verdict.findings);
      const own = verdict.findings.filter((f) => !deps.deviations.some((d) => d.clause === f.clause));
      if (own.length) failingCases.push(ex);
      if (own.length && deps.failures)
        result.failures.push(
          saveFailure(deps.failures.dir, entry.scenario.title, c, ex, own, findingLines(own), {
            seed: deps.generation.seed,
            baseUrl: deps.failures.baseUrl,
            apiKey: deps.target.apiKey,
            msisdns: deps.target.msisdns,
          }),
        );
    } else {
      const received = judgeReceived(api, ex, replays.has(ex));
      for (const id of received.judged) judged.add(id);
      findings.push(...received.findings);
    }
    for (const d of api.drift(ex.endpoint, ex.body, {
      ...(deps.knownStatuses ? { knownStatuses: deps.knownStatuses } : {}),
      ...(deps.knownHttpStatuses ? { knownHttpStatuses: deps.knownHttpStatuses } : {}),
      httpStatus: ex.httpStatus,
    }))
      drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
  }
  for (const ex of exchanges) {
    learnPhones(ex.params);
    learnPhones(ex.body);
  }
  findings = [...new Map(findings.map((f) => [findingKey(f), f])).values()];
  // An accepted invite of a refusal class whose clause was judged here and holds was legal (INV-5: a repeat
  // answered as an idempotent replay, charged once): the class stays open and the cap gets its room back.
  for (const [clause, count] of acceptedRefusals)
    if (judged.has(clause as ClauseId) && !findings.some((f) => f.clause === clause)) ledger.reopen(clause, count);
  for (const f of findings) {
    const dev = deps.deviations.find((d) => d.clause === f.clause);
    if (dev) result.warned.push({ ...redactValue(f), reason: dev.reason });
    else result.findings.push(redactValue(f));
  }
  result.judged = [...judged];
  result.drift = [...drift.values()];
  result.lines = findingLines(result.findings);
  result.flaky = notes.flaky.map(redact);
  result.waits = { count: notes.waits.length, ms: notes.waits.reduce((a, w) => a + w.ms, 0) };
  result.invites.charged = ledger.charged - chargedBefore;
  if (result.transport) result.lines.push(`no answer: ${result.transport}`);
  if (deps.strict)
    result.lines.push(
      ...result.drift.map((d) => `drift (strict) ${d.endpoint} ${d.kind} ${d.path}${d.value ? ` = ${d.value}` : ''}`),
    );
  // The requests and responses are the evidence of a failure; a passing scenario carries none (a coverage
  // scenario sends a hundred), and a failing one at most 50, its failing generated cases first.
  if (result.lines.length)
    result.exchanges = [...new Set([...failingCases, ...exchanges])].slice(0, 50).map(showExchange);
  if (result.findings.length && entry.scenario.replay === 'rerun' && deps.failures)
    result.failures.push(
      saveScenarioFailure(deps.failures.dir, entry.scenario.title, result.lines, {
        seed: deps.generation.seed,
        baseUrl: deps.failures.baseUrl,
      }),
    );
  if (result.lines.length) result.status = 'failed';
  else if (result.skipReason) result.status = 'skipped';
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

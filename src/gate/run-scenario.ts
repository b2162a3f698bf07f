import { CHECKS } from '../checks/index.js';
import { answerClauses, judgeAnswer, judgeClauses } from '../checks/judge.js';
import { TransportError } from '../client/transport.js';
import { bodyOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Exchange, Finding, Method, Params, ReadOnlyEndpoint } from '../openapi/types.js';
import { redact, redactValue } from '../redact.js';
import type { Deviation } from './config.js';
import { type InviteIntent, type InviteLedger, NotSent } from './invite-ledger.js';
import type { PlannedScenario } from './plan.js';
import { PreconditionFailed, type ScenarioContext } from './scenario.js';
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
  const send = async (endpoint: Exchange['endpoint'], method: Method, params: Params): Promise<Exchange> => {
    const ex = await sendUnderPolicy(deps.raw, endpoint, method, params, deps.policy, notes);
    exchanges.push(ex);
    return ex;
  };
  const admitInvite = (intent: InviteIntent, trx: string | undefined, count: number): void => {
    if (intent.expect === 'success' && !deps.target.allowWrites)
      throw new Error(`${entry.scenario.title}: an invite that could succeed, without writes allowed`);
    ledger.admit(intent, trx, count);
    result.invites.sent += count;
  };
  const sendInvite = async (method: Method, params: Params, intent: InviteIntent): Promise<Exchange> => {
    const trx = trxIdOf(api, params);
    try {
      const ex = await send('invite-member', method, params);
      ledger.settle(intent, trx, bodyOf(ex)?.ok === true ? 'accepted' : 'refused');
      return ex;
    } catch (err) {
      if (err instanceof TransportError) ledger.settle(intent, trx, 'unknown');
      throw err;
    }
  };
  const ctx: ScenarioContext = {
    target: deps.target,
    data: deps.data,
    form: entry.form,
    newTrxId: deps.newTrxId,
    send: (endpoint: ReadOnlyEndpoint, method: Method, params: Params) => send(endpoint, method, params),
    async invite(method, params, intent) {
      admitInvite(intent, trxIdOf(api, params), 1);
      return sendInvite(method, params, intent);
    },
    async inviteAll(requests, intent) {
      admitInvite(intent, trxIdOf(api, requests[0]?.params ?? {}), requests.length);
      const settled = await Promise.allSettled(requests.map((r) => sendInvite(r.method, r.params, intent)));
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
  for (const ex of exchanges) {
    for (const id of judgedBy(api, ex)) judged.add(id);
    findings.push(...judgeAnswer(api, ex));
    for (const d of api.drift(ex.endpoint, ex.body, {
      ...(deps.knownStatuses ? { knownStatuses: deps.knownStatuses } : {}),
      ...(deps.knownHttpStatuses ? { knownHttpStatuses: deps.knownHttpStatuses } : {}),
      httpStatus: ex.httpStatus,
    }))
      drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
  }
  findings = [...new Map(findings.map((f) => [findingKey(f), f])).values()];
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
  result.exchanges = exchanges.map(showExchange);
  if (result.transport) result.lines.push(`no answer: ${result.transport}`);
  if (deps.strict)
    result.lines.push(
      ...result.drift.map((d) => `drift (strict) ${d.endpoint} ${d.kind} ${d.path}${d.value ? ` = ${d.value}` : ''}`),
    );
  if (result.lines.length) result.status = 'failed';
  else if (result.skipReason) result.status = 'skipped';
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

/** The clauses judgeAnswer judges one answer by, and that the answer gives something to judge. */
function judgedBy(api: ApiModel, ex: Exchange): ClauseId[] {
  if (bodyOf(ex)?.ok === false) return ['ENV-1', 'ENV-4'];
  return answerClauses(api, ex.endpoint).filter((id) => CHECKS[id].applies?.(ex, { api }) ?? true);
}

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
import { RateLimited, type RawSend, type SendPolicy, sendUnderPolicy, type TrafficNotes } from './send-policy.js';
import type { GateTarget, TargetData } from './target.js';

/** A redacted request and response, as attached to a failing scenario. */
export interface ShownExchange {
  method: string;
  url: string;
  params: unknown;
  httpStatus: number;
  contentType: string;
  body: string;
}

/** What one scenario found, redacted: the reporter builds the summary and the JUnit file from these. */
export interface ScenarioResult {
  title: string;
  area: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why a skipped scenario did not run, or could not judge. */
  skipReason?: string;
  /** The clauses the scenario is about. */
  clauses: ClauseId[];
  /** Every clause it judged: its own, and those that any answer it got can break (ENV-1, ENV-4, HIS-1, ...). */
  judged: ClauseId[];
  endpoint: string;
  methods: string[];
  aliases: string[];
  form: 'write' | 'safe';
  findings: Finding[];
  /** Findings of clauses the config marks as known deviations. */
  warned: (Finding & { reason: string })[];
  drift: Drift[];
  /** One line per broken clause and place: how many records or fields broke it, and the first three. */
  lines: string[];
  flaky: string[];
  /** Rate-limit answers waited out: how many, and how long in all. */
  waits: { count: number; ms: number };
  /** How long it took for what an invite wrote to show (the longest settle of the scenario). */
  settleMs?: number;
  invites: { sent: number; charged: number };
  /** Set when no answer came. */
  transport?: string;
  exchanges: ShownExchange[];
  /** Wall time of the scenario. */
  durationMs?: number;
}

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

export function showExchange(ex: Exchange): ShownExchange {
  return {
    method: ex.method,
    url: redact(ex.url),
    params: redactValue(ex.params),
    httpStatus: ex.httpStatus,
    contentType: ex.contentType,
    body: redact(
      ex.bodyText.length > 4096 ? `${ex.bodyText.slice(0, 4096)}… (${ex.bodyText.length} bytes)` : ex.bodyText,
    ),
  };
}

/** Where a finding happened, for grouping and for its line. */
function whereOf(f: Finding): string {
  return [f.endpoint, f.method, f.aliases?.length ? `via ${f.aliases.join(',')}` : ''].filter(Boolean).join(' ');
}

/**
 * One line per clause and place: a clause broken by 37 records reads as one line with the count and the
 * first three, not 37 lines.
 */
export function findingLines(findings: readonly Finding[]): string[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.clause} [${whereOf(f)}]`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups].map(([key, list]) => {
    const one = (f: Finding): string => `${f.path}: expected ${f.expected}, got ${f.actual}`;
    if (list.length === 1) return redact(`${key} ${one(list[0] as Finding)}`);
    return redact(
      `${key} ${list.length} places broke it; first ${Math.min(3, list.length)}: ${list.slice(0, 3).map(one).join('; ')}`,
    );
  });
}

const findingKey = (f: Finding): string =>
  `${f.clause}|${f.endpoint}|${f.method}|${(f.aliases ?? []).join(',')}|${f.path}|${f.expected}|${f.actual}`;

/** The record of a scenario that did not run, and why. */
export function skippedResult(entry: PlannedScenario, reason: string): ScenarioResult {
  const s = entry.scenario;
  return {
    title: s.title,
    area: s.area,
    status: 'skipped',
    skipReason: reason,
    clauses: s.clauses,
    judged: [],
    endpoint: s.endpoint,
    methods: s.methods,
    aliases: s.aliases,
    form: entry.form,
    findings: [],
    warned: [],
    drift: [],
    lines: [],
    flaky: [],
    waits: { count: 0, ms: 0 },
    invites: { sent: 0, charged: 0 },
    exchanges: [],
  };
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

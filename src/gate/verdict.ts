import { judgeClauses } from '../checks/judge.js';
import { bodyOf } from '../openapi/exchange.js';
import type { ClauseId, Drift, Exchange, Finding } from '../openapi/types.js';
import { learnPhones, redact, redactValue } from '../redact.js';
import { saveFailure, saveScenarioFailure } from './failures.js';
import { judgeCase } from './generators/judge-case.js';
import type { PlannedScenario } from './plan.js';
import { scenarioFacts } from './reading.js';
import { judgeReceived } from './received.js';
import type { RunDeps } from './run-deps.js';
import type { Judgement } from './scenario.js';
import type { Recording } from './scenario-context.js';
import {
  findingKey,
  findingLines,
  type ReadingFact,
  type ScenarioResult,
  showExchange,
  skippedResult,
} from './scenario-result.js';
import type { FaultContext } from './vocabulary.js';

/** How a scenario's run ended before the verdict: its judgements, or why it stopped. */
export type Ending =
  | { judgements: Judgement[] }
  | { stopped: { status: 'skipped' | 'inconclusive'; reason: string }; transport?: string };

/** The kind of a refusal, for the run's tally: `HTTP 403 FORBIDDEN`. */
function refusalKind(ex: Exchange): string | undefined {
  const body = bodyOf(ex);
  if (body?.ok === true) return undefined;
  return `HTTP ${ex.httpStatus} ${body ? String(body.status) : '(not the envelope)'}`;
}

/**
 * The verdict of one scenario: its own judgements, plus every answer it received judged by every clause that
 * one answer can break (each finding under its own clause, wherever it was found). Findings of clauses marked
 * as known deviations become warnings; drift fails only a strict run. A scenario that stopped is skipped (the
 * user's choice) or inconclusive (it could not judge), and its answers are still judged.
 */
export function verdict(entry: PlannedScenario, deps: RunDeps, rec: Recording, ending: Ending): ScenarioResult {
  const { api, ledger } = deps;
  const result = skippedResult(entry, '');
  result.status = 'passed';
  delete result.skipReason;
  const findings: Finding[] = [];
  const judged = new Set<ClauseId>();
  const judgements = [...rec.judgements, ...('judgements' in ending ? ending.judgements : [])];
  for (const j of judgements) {
    const shown = [j.evidence.exchange, ...(j.evidence.pair ?? [])].filter((e): e is Exchange => e !== undefined);
    // A guarded invite answered with its used trx_id's first answer again (an idempotent replay that read nothing
    // else) says nothing of the value it carried either: only a wrong key (AUTH-1) is still the caller's breach.
    if (j.clause !== 'AUTH-1' && shown.length > 0 && shown.every((e) => rec.guarded.has(e) && rec.replays.has(e)))
      continue;
    const found = judgeClauses(api, [j.clause], j.evidence);
    findings.push(...found);
    // A guarded invite (a used trx_id, a product that cannot exist) refused says nothing of what else it carried:
    // a clause judged only on such refusals was not judged (a finding still counts: it was accepted).
    const guardedOnly = shown.length > 0 && shown.every((e) => rec.guarded.has(e) && bodyOf(e)?.ok !== true);
    if (!guardedOnly || found.length) judged.add(j.clause);
  }
  for (const id of rec.judgedQuietly) judged.add(id);
  const drift = new Map<string, Drift>();
  const failingCases: Exchange[] = [];
  const withExtraFields = new Set<Exchange>();
  for (const ex of rec.exchanges) {
    const c = rec.generated.get(ex);
    const own = c ? judgeCase(api, c, ex) : judgeReceived(api, ex, rec.replays.has(ex), rec.mustRefuse.has(ex));
    for (const id of own.judged) judged.add(id);
    findings.push(...own.findings);
    const failing = own.findings.filter((f) => !deps.deviations.some((d) => d.clause === f.clause));
    if (c && failing.length) {
      failingCases.push(ex);
      if (deps.failures)
        result.failures.push(
          saveFailure(deps.failures.dir, entry.scenario.title, c, ex, failing, findingLines(failing), {
            seed: deps.generation.seed,
            baseUrl: deps.failures.baseUrl,
            apiKey: deps.target.apiKey,
            msisdns: deps.target.msisdns,
          }),
        );
    }
    for (const d of api.drift(ex.endpoint, ex.body, {
      ...(deps.knownStatuses ? { knownStatuses: deps.knownStatuses } : {}),
      ...(deps.knownHttpStatuses ? { knownHttpStatuses: deps.knownHttpStatuses } : {}),
      httpStatus: ex.httpStatus,
    })) {
      drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
      if (d.kind === 'field') withExtraFields.add(ex);
    }
    const kind = refusalKind(ex);
    result.answers.total++;
    if (kind) result.answers.refusals[kind] = (result.answers.refusals[kind] ?? 0) + 1;
    learnPhones(ex.params);
    learnPhones(ex.body);
  }
  const unique = [...new Map(findings.map((f) => [findingKey(f), f])).values()];
  // An accepted invite of a refusal class whose clause was judged here and holds was legal (INV-5: a repeat
  // answered as an idempotent replay, charged once): the class stays open and the cap gets its room back.
  for (const [clause, count] of rec.acceptedRefusals)
    if (judged.has(clause as ClauseId) && !unique.some((f) => f.clause === clause)) {
      ledger.reopen(clause, count);
      rec.invitesCharged -= count;
    }
  for (const f of unique) {
    const dev = deps.deviations.find((d) => d.clause === f.clause);
    if (dev) result.warned.push({ ...redactValue(f), reason: dev.reason });
    else result.findings.push(redactValue(f));
  }
  result.judged = [...judged];
  // Its own clauses it could not judge because its invites went out guarded: the run's choice (read-only, the cap).
  if (rec.guarded.size > 0) {
    const left = entry.scenario.clauses.filter((c) => !judged.has(c));
    if (left.length)
      result.notJudged = {
        clauses: left,
        reason: `its invites went out guarded (a used trx_id, a product that cannot exist), refused whatever else they carry: --allow-writes (within --max-invites) judges ${left.join(', ')}`,
      };
  }
  result.drift = [...drift.values()];
  result.lines = findingLines(result.findings);
  result.flaky = rec.notes.flaky.map(redact);
  result.waits = { count: rec.notes.waits.length, ms: rec.notes.waits.reduce((a, w) => a + w.ms, 0) };
  result.invites.sent = rec.invitesSent;
  result.observations = [
    ...rec.observations,
    // The rate limits it waited out, and the rate the provider allowed as the run's pace learned it.
    ...rec.notes.waits.map(
      (w): ReadingFact => ({ point: 'reading', knob: 'rate-limited', value: String(w.httpStatus) }),
    ),
    ...rateSeen(deps.policy.pace?.providerRate()),
    ...scenarioFacts(api, rec.exchanges, faultContext(deps), (ex) => withExtraFields.has(ex), showExchange),
  ];
  if (rec.settleMs !== undefined) result.settleMs = rec.settleMs;
  if ('stopped' in ending) {
    result.skipReason = redact(ending.stopped.reason);
    if (ending.transport) result.transport = redact(ending.transport);
  }
  if (deps.strict)
    result.lines.push(
      ...result.drift.map((d) => `drift (strict) ${d.endpoint} ${d.kind} ${d.path}${d.value ? ` = ${d.value}` : ''}`),
    );
  // The requests and responses are the evidence of a failure; a passing scenario carries none (a coverage
  // scenario sends a hundred), and a failing one at most 50, its failing generated cases first.
  if (result.lines.length || 'stopped' in ending)
    result.exchanges = [...new Set([...failingCases, ...rec.exchanges])].slice(0, 50).map(showExchange);
  if (result.findings.length && entry.scenario.replay === 'rerun' && deps.failures)
    result.failures.push(
      saveScenarioFailure(deps.failures.dir, entry.scenario.title, result.lines, {
        seed: deps.generation.seed,
        baseUrl: deps.failures.baseUrl,
      }),
    );
  if (result.lines.length) result.status = 'failed';
  else if ('stopped' in ending) result.status = ending.stopped.status;
  return result;
}

/** What the run knows when it tells what a request did wrong (vocabulary.ts). */
function faultContext(deps: RunDeps): FaultContext {
  const own = deps.ledger.carriedOut.map((c) => c.trxId);
  const history = (deps.data.records ?? []).map((r) => String(r.trx_id));
  return {
    apiKey: deps.target.apiKey,
    knownTrxIds: new Set([...history, ...own, ...(deps.data.knownTrxId ? [deps.data.knownTrxId] : [])]),
    ownTrxIds: new Set(own),
    ...(deps.target.product !== undefined ? { product: deps.target.product } : {}),
    ...(deps.target.kind !== undefined ? { kind: deps.target.kind } : {}),
    ...(deps.ledger.price !== undefined ? { price: deps.ledger.price } : {}),
  };
}

/** The rate the provider was seen to allow, as a reading fact, once the run's pace has learned one. */
function rateSeen(rate: number | undefined): ReadingFact[] {
  return rate === undefined ? [] : [{ point: 'reading', knob: 'rate-seen', value: rate.toFixed(1) }];
}

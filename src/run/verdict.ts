import { judgeClauses } from '../checks/judge.js';
import { bodyOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Drift, Exchange, Finding } from '../openapi/types.js';
import type { GeneratedCase } from '../plan/generators/cases.js';
import { judgeCase } from '../plan/generators/judge-case.js';
import { showExchange } from '../plan/observations.js';
import type { NotRun, PlannedScenario } from '../plan/plan.js';
import { judgeReceived } from '../plan/received.js';
import type { Judgement } from '../plan/scenario.js';
import { type FaultContext, scenarioFacts } from '../reading/index.js';
import { learnPhones, redact, redactValue } from '../redact.js';
import { saveFailure, saveScenarioFailure } from '../report/failures.js';
import { applyDeviations, driftIdentity, strictDriftLines } from '../report/outcome-rules.js';
import {
  emptyResult,
  findingKey,
  findingLines,
  type Observation,
  type ReadingFact,
  type ScenarioResult,
} from '../report/scenario-result.js';
import type { Recording } from './recording.js';
import type { RunDeps } from './run-deps.js';

/** How a scenario's run ended before the verdict: its judgements, or why it stopped. */
export type Ending = { judgements: Judgement[] } | { stopped: NotRun; transport?: string };

/** The kind of a refusal, for the run's tally: `HTTP 403 FORBIDDEN`. */
function refusalKind(ex: Exchange): string | undefined {
  const body = bodyOf(ex);
  if (body?.ok === true) return undefined;
  return `HTTP ${ex.httpStatus} ${body ? String(body.status) : '(not the envelope)'}`;
}

/** What judging a scenario's judgements and answers found, before the known deviations are applied. */
interface Judged {
  findings: Finding[];
  judged: Set<ClauseId>;
  drift: Map<string, Drift>;
  /** Generated cases whose answers broke a clause (not a known deviation): the first evidence shown. */
  failingCases: Exchange[];
  /** Answers with a field outside the description: the reading's facts of them say so. */
  withExtraFields: Set<Exchange>;
}

/**
 * The scenario's own judgements, each by its clause. A guarded invite (a used trx_id, a product that cannot
 * exist) answered as a replay, or refused, says nothing of what else it carried.
 */
function judgeJudgements(api: ApiModel, rec: Recording, judgements: readonly Judgement[], out: Judged): void {
  for (const j of judgements) {
    const shown = [j.evidence.exchange, ...(j.evidence.pair ?? [])].filter((e): e is Exchange => e !== undefined);
    // A guarded invite answered with its used trx_id's first answer again (an idempotent replay that read nothing
    // else) says nothing of the value it carried either: only a wrong key (AUTH-1) is still the caller's breach.
    if (j.clause !== 'AUTH-1' && shown.length > 0 && shown.every((e) => rec.guarded.has(e) && rec.replays.has(e)))
      continue;
    const found = judgeClauses(api, [j.clause], j.evidence);
    out.findings.push(...found);
    // A guarded invite (a used trx_id, a product that cannot exist) refused says nothing of what else it carried:
    // a clause judged only on such refusals was not judged (a finding still counts: it was accepted).
    const guardedOnly = shown.length > 0 && shown.every((e) => rec.guarded.has(e) && bodyOf(e)?.ok !== true);
    if (!guardedOnly || found.length) out.judged.add(j.clause);
  }
  for (const id of rec.judgedQuietly) out.judged.add(id);
}

/** A failing generated case, saved for `h2h replay` when the run saves failures. */
function saveCase(
  entry: PlannedScenario,
  deps: RunDeps,
  c: GeneratedCase,
  ex: Exchange,
  failing: Finding[],
): string | undefined {
  if (!deps.failures) return undefined;
  return saveFailure(deps.failures.dir, entry.scenario.title, c, ex, failing, findingLines(failing), {
    seed: deps.generation.seed,
    baseUrl: deps.failures.baseUrl,
    apiKey: deps.target.apiKey,
    msisdns: deps.target.msisdns,
  });
}

/** The drift of one answer: fields, status values and codes outside the description and the known lists. */
function driftOf(deps: RunDeps, ex: Exchange): Drift[] {
  return deps.api.drift(ex.endpoint, ex.body, {
    ...(deps.knownStatuses ? { knownStatuses: deps.knownStatuses } : {}),
    ...(deps.knownHttpStatuses ? { knownHttpStatuses: deps.knownHttpStatuses } : {}),
    httpStatus: ex.httpStatus,
  });
}

/**
 * Every answer the scenario received, judged by every clause it can break (a generated case by its own rules),
 * its drift noted and its refusal tallied; a failing generated case is saved for `h2h replay`.
 */
function judgeAnswers(
  entry: PlannedScenario,
  deps: RunDeps,
  rec: Recording,
  result: ScenarioResult,
  out: Judged,
): void {
  for (const ex of rec.exchanges) {
    const c = rec.generated.get(ex);
    const own = c
      ? judgeCase(deps.api, c, ex)
      : judgeReceived(deps.api, ex, rec.replays.has(ex), rec.mustRefuse.has(ex));
    for (const id of own.judged) out.judged.add(id);
    out.findings.push(...own.findings);
    const failing = applyDeviations(own.findings, deps.deviations).broken;
    if (c && failing.length) {
      out.failingCases.push(ex);
      const saved = saveCase(entry, deps, c, ex, failing);
      if (saved !== undefined) result.failures.push(saved);
    }
    for (const d of driftOf(deps, ex)) {
      out.drift.set(driftIdentity(d), d);
      if (d.kind === 'field') out.withExtraFields.add(ex);
    }
    const kind = refusalKind(ex);
    result.answers.total++;
    if (kind) result.answers.refusals[kind] = (result.answers.refusals[kind] ?? 0) + 1;
    learnPhones(ex.params);
    learnPhones(ex.body);
  }
}

/**
 * An accepted invite of a refusal class whose clause was judged here and holds was legal (INV-5: a repeat
 * answered as an idempotent replay, charged once): the class stays open and the cap gets its room back.
 */
function reopenLegalRefusals(deps: RunDeps, rec: Recording, judged: Set<ClauseId>, findings: readonly Finding[]): void {
  for (const [clause, count] of rec.acceptedRefusals)
    if (judged.has(clause as ClauseId) && !findings.some((f) => f.clause === clause)) {
      deps.ledger.reopen(clause, count);
      rec.invitesCharged -= count;
    }
}

/** Its own clauses it could not judge because its invites went out guarded: the run's choice (read-only, the cap). */
function notJudgedGuarded(entry: PlannedScenario, rec: Recording, judged: Set<ClauseId>): ScenarioResult['notJudged'] {
  if (rec.guarded.size === 0) return undefined;
  const left = entry.scenario.clauses.filter((c) => !judged.has(c));
  if (!left.length) return undefined;
  return {
    clauses: left,
    reason: `its invites went out guarded (a used trx_id, a product that cannot exist), refused whatever else they carry: --allow-writes (within --max-invites) judges ${left.join(', ')}`,
  };
}

/** What the scenario learned of the provider: its own observations, the rate limits it waited out, the reading. */
function observationsOf(deps: RunDeps, rec: Recording, withExtraFields: Set<Exchange>): Observation[] {
  return [
    ...rec.observations,
    // The rate limits it waited out, and the rate the provider allowed as the run's pace learned it.
    ...rec.notes.waits.map(
      (w): ReadingFact => ({ point: 'reading', knob: 'rate-limited', value: String(w.httpStatus) }),
    ),
    ...rateSeen(deps.policy.pace?.providerRate()),
    ...scenarioFacts(deps.api, rec.exchanges, faultContext(deps), (ex) => withExtraFields.has(ex), showExchange, {
      quiet: rec.quiet,
    }),
  ];
}

/**
 * The requests and responses are the evidence of a failure; a passing scenario carries none (a coverage scenario
 * sends a hundred), and a failing one at most 50, its failing generated cases first. A failing scenario replayed
 * by running it again is saved for `h2h replay`. Then its status: failed on a line, else how it stopped.
 */
function conclude(
  entry: PlannedScenario,
  deps: RunDeps,
  rec: Recording,
  ending: Ending,
  result: ScenarioResult,
  failingCases: readonly Exchange[],
): void {
  const stopped = 'stopped' in ending ? ending.stopped : undefined;
  if (result.lines.length || stopped)
    result.exchanges = [...new Set([...failingCases, ...rec.exchanges])].slice(0, 50).map(showExchange);
  if (result.findings.length && entry.scenario.replay === 'rerun' && deps.failures)
    result.failures.push(
      saveScenarioFailure(deps.failures.dir, entry.scenario.title, result.lines, {
        seed: deps.generation.seed,
        baseUrl: deps.failures.baseUrl,
      }),
    );
  if (result.lines.length) result.status = 'failed';
  else if (stopped) result.status = stopped.status;
}

/**
 * The verdict of one scenario: its own judgements, plus every answer it received judged by every clause that
 * one answer can break (each finding under its own clause, wherever it was found). Findings of clauses marked
 * as known deviations become warnings; drift fails only a strict run (outcome-rules.ts). A scenario that stopped
 * is skipped (the user's choice) or inconclusive (it could not judge), and its answers are still judged.
 */
export function verdict(entry: PlannedScenario, deps: RunDeps, rec: Recording, ending: Ending): ScenarioResult {
  const result = emptyResult(entry);
  const found: Judged = {
    findings: [],
    judged: new Set(),
    drift: new Map(),
    failingCases: [],
    withExtraFields: new Set(),
  };
  judgeJudgements(deps.api, rec, [...rec.judgements, ...('judgements' in ending ? ending.judgements : [])], found);
  judgeAnswers(entry, deps, rec, result, found);
  const unique = [...new Map(found.findings.map((f) => [findingKey(f), f])).values()];
  reopenLegalRefusals(deps, rec, found.judged, unique);
  const { broken, warned } = applyDeviations(unique.map(redactValue), deps.deviations);
  result.findings = broken;
  result.warned = warned;
  result.judged = [...found.judged];
  const notJudged = notJudgedGuarded(entry, rec, found.judged);
  if (notJudged) result.notJudged = notJudged;
  result.drift = [...found.drift.values()];
  result.lines = findingLines(result.findings);
  result.flaky = rec.notes.flaky.map(redact);
  result.waits = { count: rec.notes.waits.length, ms: rec.notes.waits.reduce((a, w) => a + w.ms, 0) };
  result.invites.sent = rec.invitesSent;
  result.observations = observationsOf(deps, rec, found.withExtraFields);
  if (rec.settleMs !== undefined) result.settleMs = rec.settleMs;
  if ('stopped' in ending) {
    result.skipKind = ending.stopped.kind;
    result.skipReason = redact(ending.stopped.reason);
    if (ending.transport) result.transport = redact(ending.transport);
  }
  result.lines.push(...strictDriftLines(result.drift, deps.strict));
  conclude(entry, deps, rec, ending, result, found.failingCases);
  return result;
}

/** What the run knows when it tells what a request did wrong (src/reading/vocabulary-facts.ts). */
function faultContext(deps: RunDeps): FaultContext {
  const own = deps.ledger.carriedOut.map((c) => c.trxId);
  const history = (deps.data.records ?? []).map((r) => String(r.trx_id));
  return {
    apiKey: deps.target.apiKey,
    knownTrxIds: new Set([...history, ...own, ...(deps.data.knownTrxId ? [deps.data.knownTrxId] : [])]),
    ownTrxIds: new Set(own),
    ownInvites: new Map(deps.ledger.carriedOut.flatMap((c) => (c.sent ? [[c.trxId, c.sent] as const] : []))),
    ...(deps.target.product !== undefined ? { product: deps.target.product } : {}),
    ...(deps.target.kind !== undefined ? { kind: deps.target.kind } : {}),
    ...(deps.ledger.price !== undefined ? { price: deps.ledger.price } : {}),
  };
}

/** The rate the provider was seen to allow, as a reading fact, once the run's pace has learned one. */
function rateSeen(rate: number | undefined): ReadingFact[] {
  return rate === undefined ? [] : [{ point: 'reading', knob: 'rate-seen', value: rate.toFixed(1) }];
}

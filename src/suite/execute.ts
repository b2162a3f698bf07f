import { redact, redactValue } from '../redact.js';
import type { Spec } from '../spec/load.js';
import type { ClauseId, Drift, Exchange, Finding } from '../spec/types.js';
import type { ContractConfig } from './config.js';
import { runScenario } from './run.js';
import type { RunContext, Scenario } from './scenarios.js';
import { TransportError } from './target.js';

/** A redacted request and response, as attached to a failing test. */
export interface ShownExchange {
  method: string;
  url: string;
  params: unknown;
  httpStatus: number;
  contentType: string;
  body: string;
}

/** What one test found, redacted: the reporter builds the summary from these. */
export interface ResultRecord {
  title: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why a skipped scenario did not run. */
  skipReason?: string;
  clauses: ClauseId[];
  endpoint: string;
  methods: string[];
  aliases: string[];
  findings: Finding[];
  /** Findings of clauses the config marks as known deviations. */
  warned: (Finding & { reason: string })[];
  drift: Drift[];
  flaky: string[];
  /** Set when no answer came even after one retry. */
  transport?: string;
  exchanges: ShownExchange[];
}

export interface Verdict {
  failed: boolean;
  failures: string[];
  message: string;
  record: ResultRecord;
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

/** One line of a finding, for test errors and the console. */
export function findingLine(f: Finding): string {
  const at = [f.endpoint, f.method, f.aliases?.length ? `via ${f.aliases.join(',')}` : ''].filter(Boolean).join(' ');
  return redact(`${f.clause} [${at}] ${f.path}: expected ${f.expected}, got ${f.actual}`);
}

/** The record of a scenario before it runs: passed until a finding says otherwise. */
function newRecord(scenario: Scenario): ResultRecord {
  return {
    title: scenario.title,
    status: 'passed',
    clauses: scenario.clauses,
    endpoint: scenario.endpoint,
    methods: scenario.methods,
    aliases: scenario.aliases,
    findings: [],
    warned: [],
    drift: [],
    flaky: [],
    exchanges: [],
  };
}

/** The record of a scenario that did not run, and why. */
export function skippedRecord(scenario: Scenario, reason: string): ResultRecord {
  return { ...newRecord(scenario), status: 'skipped', skipReason: reason };
}

/**
 * Runs a scenario and decides the test: findings of clauses marked as known deviations are warnings; drift
 * fails only a strict run; a transport error that survived its retry fails the test as such.
 */
export async function executeScenario(
  spec: Spec,
  scenario: Scenario,
  ctx: RunContext,
  cfg: ContractConfig,
): Promise<Verdict> {
  const record = newRecord(scenario);
  const failures: string[] = [];
  try {
    const outcome = await runScenario(spec, scenario, ctx);
    for (const f of outcome.findings) {
      const dev = cfg.deviations.find((d) => d.clause === f.clause);
      if (dev) record.warned.push({ ...redactValue(f), reason: dev.reason });
      else record.findings.push(redactValue(f));
    }
    record.drift = outcome.drift;
    record.exchanges = outcome.exchanges.map(showExchange);
    failures.push(...record.findings.map(findingLine));
    if (cfg.strict)
      failures.push(
        ...outcome.drift.map(
          (d) => `drift (strict) ${d.endpoint} ${d.kind} ${d.path}${d.value ? ` = ${d.value}` : ''}`,
        ),
      );
  } catch (err) {
    if (!(err instanceof TransportError)) throw new Error(redact((err as Error).message));
    record.transport = `${err.reason}: ${err.message}`;
    failures.push(`transport ${record.transport}`);
  }
  if (failures.length) record.status = 'failed';
  const message = redact(
    `${scenario.title}\n${failures.map((l) => `  ${l}`).join('\n')}${record.exchanges.length && failures.length ? `\n  (requests and responses attached as 'exchanges', redacted)` : ''}`,
  );
  return { failed: failures.length > 0, failures: failures.map(redact), message, record };
}

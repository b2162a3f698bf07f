import { runChecks } from '../checks/run.js';
import type { Evidence } from '../checks/types.js';
import { callApi } from '../client/client.js';
import type { Spec } from '../spec/load.js';
import type { Drift, Endpoint, Exchange, Finding, Method, Params } from '../spec/types.js';
import type { RunContext, Scenario } from './scenarios.js';
import { type Target, TransportError } from './target.js';

export interface ScenarioOutcome {
  findings: Finding[];
  drift: Drift[];
  /** Every exchange the scenario made, in order: the request and response that prove a finding. */
  exchanges: Exchange[];
}

function exchangesOf(ev: Evidence): Exchange[] {
  const list: (Exchange | undefined)[] = [
    ev.exchange,
    ...(ev.pair ?? []),
    ev.saldoBefore,
    ev.invite,
    ev.saldoBetween,
    ...(ev.repeats ?? []),
    ev.saldoAfter,
    ev.lookup,
    ev.history,
  ];
  return list.filter((e): e is Exchange => e !== undefined);
}

/** Runs one scenario and judges its verdicts with the shared checks; drift is collected from every answer. */
export async function runScenario(spec: Spec, scenario: Scenario, ctx: RunContext): Promise<ScenarioOutcome> {
  const verdicts = await scenario.run(ctx);
  const findings: Finding[] = [];
  const seen = new Set<Exchange>();
  const exchanges: Exchange[] = [];
  const drift = new Map<string, Drift>();
  for (const v of verdicts) {
    findings.push(...runChecks(spec, [v.clause], v.evidence));
    for (const ex of exchangesOf(v.evidence)) {
      if (seen.has(ex)) continue;
      seen.add(ex);
      exchanges.push(ex);
      for (const d of spec.drift(ex.endpoint, ex.body))
        drift.set(`${d.endpoint}|${d.kind}|${d.path}|${d.value ?? ''}`, d);
    }
  }
  const unique = new Map(
    findings.map((f) => [`${f.clause}|${f.endpoint}|${f.method}|${f.path}|${f.expected}|${f.actual}`, f]),
  );
  return { findings: [...unique.values()], drift: [...drift.values()], exchanges };
}

export interface HttpTargetOptions extends Omit<Target, 'send'> {
  baseUrl: string;
  timeoutMs?: number;
}

/** A Target that sends with the toolkit's own client (node:http), for tests, benchmarks and preflight. */
export function httpTarget(opts: HttpTargetOptions): Target {
  const { baseUrl, timeoutMs, ...rest } = opts;
  return {
    ...rest,
    async send(endpoint: Endpoint, method: Method, params: Params): Promise<Exchange> {
      const r = await callApi({ baseUrl, endpoint, method, params, timeoutMs: timeoutMs ?? 10_000 });
      if (r.error || !r.exchange)
        throw new TransportError(r.error?.message ?? 'no answer', r.error?.reason ?? 'connect');
      return r.exchange;
    },
  };
}

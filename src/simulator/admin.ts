import { FAULTS, type FaultName, type FaultSetting, isFaultName } from './faults/index.js';
import type { RequestLog } from './request-log.js';
import type { SimState } from './state.js';

/** Path prefix of the simulator's own admin API (never part of the H2H API). */
export const ADMIN = '/__sim';

/** The faults that take `ms` (transport-faults.ts: the delay of latency, the pace of slow-drip). */
const TAKES_MS: ReadonlySet<FaultName> = new Set<FaultName>(['latency', 'slow-drip']);

/** The most `ms` a timer can wait (Node's setTimeout fires at once past it). */
const MAX_MS = 2 ** 31 - 1;

/** The parameters each admin path takes: any other, or one given twice, is refused. */
const PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  [`${ADMIN}/faults`]: [],
  [`${ADMIN}/log`]: [],
  [`${ADMIN}/fault`]: ['name', 'ms'],
};

/** A malformed admin parameter: HTTP 400 and the API's envelope, its message naming the parameter. */
function malformed(message: string): [number, unknown] {
  return [400, { ok: false, status: 'INVALID_PARAMETER', message }];
}

/** Why an admin path's query is refused (an unknown parameter, one given twice), or undefined. */
function queryProblem(path: string, query: URLSearchParams): string | undefined {
  const known = PARAMETERS[path] ?? [];
  const takes = known.length ? `takes ${known.join(' and ')}` : 'takes no parameter';
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!known.includes(name)) return `${name}: unknown parameter; ${path} ${takes}`;
    if (seen.has(name)) return `${name}: given more than once`;
    seen.add(name);
  }
  return undefined;
}

/** The fault `POST /__sim/fault?name=NAME[&ms=N]` asks for (null: none), or why it is refused. */
function faultAsked(query: URLSearchParams): { fault: FaultSetting | null } | { problem: string } {
  const name = query.get('name') ?? '';
  const ms = query.get('ms');
  const off = name === '' || name === 'none';
  if (!off && !isFaultName(name))
    return { problem: `name: unknown fault '${name}'; one of: none, ${FAULTS.map((f) => f.name).join(', ')}` };
  if (ms === null) return { fault: off ? null : { name: name as FaultName } };
  if (off || !TAKES_MS.has(name as FaultName))
    return { problem: `ms: only ${[...TAKES_MS].join(' and ')} take ms, not ${off ? 'none' : name}` };
  if (!/^\d+$/.test(ms) || Number(ms) > MAX_MS)
    return { problem: `ms: must be a whole number of milliseconds from 0 to ${MAX_MS}, got '${ms}'` };
  return { fault: { name: name as FaultName, ms: Number(ms) } };
}

/**
 * The admin API: the fault catalogue, the request log, and switching a fault at runtime. A malformed parameter
 * (unknown, repeated, an unknown fault, an `ms` that is no whole number of milliseconds or that the fault does not
 * take) is refused with HTTP 400 and the envelope `{ok: false, status: INVALID_PARAMETER, message}`, the message
 * naming the parameter; nothing changes.
 */
export function adminAnswer(method: string, url: URL, state: SimState, log: RequestLog): [number, unknown] {
  const known = Object.hasOwn(PARAMETERS, url.pathname) && (url.pathname !== `${ADMIN}/fault` || method === 'POST');
  if (!known)
    return [404, { error: `admin paths: ${ADMIN}/faults, ${ADMIN}/log, POST ${ADMIN}/fault?name=NAME[&ms=N]` }];
  const problem = queryProblem(url.pathname, url.searchParams);
  if (problem) return malformed(problem);
  if (url.pathname === `${ADMIN}/faults`) return [200, { active: state.fault, catalog: FAULTS }];
  if (url.pathname === `${ADMIN}/log`) return [200, log.entries()];
  const asked = faultAsked(url.searchParams);
  if ('problem' in asked) return malformed(asked.problem);
  state.fault = asked.fault;
  return [200, { active: state.fault }];
}

import { FAULTS, isFaultName } from './faults.js';
import type { RequestLog } from './request-log.js';
import type { SimState } from './state.js';

/** Path prefix of the simulator's own admin API (never part of the H2H API). */
export const ADMIN = '/__sim';

/** The admin API: the fault catalogue, the request log, and switching a fault at runtime. */
export function adminAnswer(method: string, url: URL, state: SimState, log: RequestLog): [number, unknown] {
  if (url.pathname === `${ADMIN}/faults`) return [200, { active: state.fault, catalog: FAULTS }];
  if (url.pathname === `${ADMIN}/log`) return [200, log.entries()];
  if (url.pathname === `${ADMIN}/fault` && method === 'POST') {
    const name = url.searchParams.get('name') ?? '';
    const ms = url.searchParams.get('ms');
    if (name === '' || name === 'none') {
      state.fault = null;
      return [200, { active: null }];
    }
    if (!isFaultName(name)) return [400, { error: `unknown fault ${name}; see ${ADMIN}/faults` }];
    state.fault = { name, ...(ms ? { ms: Number(ms) } : {}) };
    return [200, { active: state.fault }];
  }
  return [404, { error: `admin paths: ${ADMIN}/faults, ${ADMIN}/log, POST ${ADMIN}/fault?name=NAME[&ms=N]` }];
}

import { type Endpoint, METHODS, type Params } from '../../openapi/types.js';
import { baseParams, WRONG_KEY } from '../sampling.js';
import { type Area, judge, rename, type Scenario, without } from '../scenario.js';
import { sendAs } from './common.js';

/**
 * The ways a request carries no key or a plainly wrong one: label, change, alias used. Every key near the real one
 * (a character off, another JSON type) is a near miss (generators/cases.ts).
 */
const BAD_KEYS: [string, (p: Params) => Params, string[]][] = [
  ['missing', (p) => without(p, 'api_key'), []],
  ['empty', (p) => ({ ...p, api_key: '' }), []],
  ['wrong', (p) => ({ ...p, api_key: WRONG_KEY }), []],
  ['wrong via key', (p) => rename({ ...p, api_key: WRONG_KEY }, 'api_key', 'key'), ['key']],
  ['empty via key', (p) => rename({ ...p, api_key: '' }, 'api_key', 'key'), ['key']],
];

/**
 * AUTH-1 on one endpoint: a missing, empty or wrong key (and a wrong one under the alias) never gives ok true
 * nor account data. On invite-member (in the invite area) each is an invite a conformant API must refuse.
 */
export function authScenarios(endpoint: Endpoint, area: Area = 'auth'): Scenario[] {
  const out: Scenario[] = [];
  const invite = endpoint === 'invite-member';
  for (const method of METHODS) {
    for (const [label, change, aliases] of BAD_KEYS) {
      out.push({
        title: `AUTH-1 ${endpoint} ${method}${aliases.length ? ` via ${aliases.join(',')}` : ''}: ${label} api_key is refused without account data`,
        clauses: ['AUTH-1'],
        area,
        endpoint,
        methods: [method],
        aliases,
        plainOpenApi: label === 'wrong',
        needs: endpoint === 'cek-trx-id' ? ['known-trx'] : [],
        ...(invite ? { invite: { writes: 0, risk: 1, priority: 0, safe: true } } : {}),
        requests: 1,
        async run(ctx) {
          const ex = await sendAs(ctx, endpoint, method, change(baseParams(ctx, endpoint)), {
            expect: 'refusal',
            clause: 'AUTH-1',
          });
          return [judge('AUTH-1', { exchange: ex })];
        },
      });
    }
  }
  return out;
}

import type { RawBody } from '../../client/client.js';
import { ENDPOINTS_READS_FIRST, type Endpoint, type Exchange } from '../../openapi/types.js';
import { judge, type Scenario, type ScenarioContext } from '../scenario.js';
import { AREA_OF } from './common.js';

/**
 * POST bodies that are no JSON object of parameters: what a client's bug, a proxy or an attacker sends. None
 * carries a key a provider could read: each must be refused without account data (AUTH-1), and every answer is the
 * envelope (ENV-1), never an HTML error page.
 */
const BODIES: readonly RawBody[] = [
  // cut-off JSON
  { text: '{"api_key": "', contentType: 'application/json' },
  // a JSON array
  { text: '[]', contentType: 'application/json' },
  // a JSON string
  { text: '"saldo"', contentType: 'application/json' },
  // a JSON number
  { text: '42', contentType: 'application/json' },
  // an empty body
  { text: '', contentType: 'application/json' },
  // text that is not JSON
  { text: 'api key please', contentType: 'application/json' },
  // XML
  { text: '<request><api_key/></request>', contentType: 'application/xml' },
  // a JSON object nested 64 deep
  { text: `${'{"a":'.repeat(64)}1${'}'.repeat(64)}`, contentType: 'application/json' },
  // plain text
  { text: 'hello', contentType: 'text/plain' },
];

/** One body of BODIES to an endpoint: an invite through the ledger (it can carry nothing out), else a read. */
function sendBody(ctx: ScenarioContext, endpoint: Endpoint, body: RawBody): Promise<Exchange> {
  const opts = { body, mustRefuse: true };
  return endpoint === 'invite-member'
    ? ctx.invite('POST', {}, { expect: 'refusal', clause: 'AUTH-1' }, opts)
    : ctx.send(endpoint, 'POST', {}, opts);
}

/** ENV-1 and AUTH-1 on every endpoint's answers to POST bodies that are no JSON object of parameters. */
export function bodyScenarios(): Scenario[] {
  return ENDPOINTS_READS_FIRST.map((endpoint) => ({
    title: `ENV-1 AUTH-1 ${endpoint} POST: bodies that are no JSON object of parameters get the envelope`,
    clauses: ['ENV-1', 'AUTH-1'],
    area: endpoint === 'invite-member' ? 'invite' : endpoint === 'saldo-user' ? 'envelope' : AREA_OF[endpoint],
    endpoint,
    methods: ['POST'],
    aliases: [],
    plainOpenApi: false,
    ...(endpoint === 'invite-member' ? { invite: { writes: 0, risk: 1, priority: 0, safe: true } } : {}),
    requests: BODIES.length,
    async run(ctx) {
      const judged = [];
      for (const body of BODIES) {
        const exchange = await sendBody(ctx, endpoint, body);
        judged.push(judge('ENV-1', { exchange }), judge('AUTH-1', { exchange }));
      }
      return judged;
    },
  }));
}

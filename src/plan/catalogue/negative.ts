import { METHODS } from '../../openapi/types.js';
import { compareLimit } from '../sampling.js';
import { judge, NotJudged, type Scenario } from '../scenario.js';

/**
 * A name the run wrote that no product holds: three characters or more, one of them outside ASCII (a member named
 * in another script). A short or ASCII one (`Ani`) may stand in a product's name, which history need not show.
 */
const foreignName = (n: unknown): n is string =>
  typeof n === 'string' && n.trim().length >= 3 && [...n].some((c) => (c.codePointAt(0) ?? 0) > 0x7f);

/**
 * Negative evidence for HIS-4: a value the run wrote outside the fields q searches (a member's name) finds no
 * record. A provider that matches q against the name as well answers it with the run's own record.
 */
export function negativeScenarios(): Scenario[] {
  return METHODS.map(
    (method): Scenario => ({
      title: `HIS-4 history-transaksi ${method}: a name the run wrote finds no record`,
      clauses: ['HIS-4'],
      area: 'history',
      endpoint: 'history-transaksi',
      methods: [method],
      aliases: [],
      afterWrites: true,
      requests: 4,
      async run(ctx) {
        const names = [...new Set(ctx.ownInvites().map((o) => o.sent?.name))].filter(foreignName);
        // Not carried out (the cap, the balance): its own scenario says why; HIS-4 is judged by the others.
        if (names.length === 0)
          throw new NotJudged(
            "no invite of this run carried a name in another script: nothing outside HIS-4's fields to search for",
          );
        const answers = await Promise.all(
          names.map((q) =>
            ctx.send('history-transaksi', method, { api_key: ctx.target.apiKey, q, limit: compareLimit(ctx) }),
          ),
        );
        return answers.map((exchange) => judge('HIS-4', { exchange, foreignQuery: true }));
      },
    }),
  );
}

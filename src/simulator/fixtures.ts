import { fileURLToPath } from 'node:url';
import { type Static, Type } from '@sinclair/typebox';
import { maskPhone } from '../redact.js';
import { checkConfig, oneOf, readYamlFile, UsageError } from '../shared/config-file.js';

export const DEFAULT_FIXTURES = fileURLToPath(new URL('./fixtures.yaml', import.meta.url));

const phone62 = Type.String({ pattern: '^62[0-9]{7,13}$' });
const kind = oneOf(['akrab', 'circle']);
const closed = { additionalProperties: false } as const;

/** The simulator's state file; the Fixture type is derived from this schema. */
const FIXTURE_SCHEMA = Type.Object(
  {
    accounts: Type.Array(
      Type.Object(
        {
          id: Type.String({ minLength: 1 }),
          api_key: Type.String({ minLength: 8 }),
          saldo: Type.Integer({ minimum: 0 }),
        },
        closed,
      ),
      { minItems: 1 },
    ),
    products: Type.Array(
      Type.Object(
        {
          code: Type.String({ minLength: 1 }),
          name: Type.String({ minLength: 1 }),
          kind,
          price: Type.Integer({ minimum: 1 }),
        },
        closed,
      ),
      { minItems: 1 },
    ),
    managers: Type.Array(
      Type.Object({ number: phone62, account: Type.String(), kind, slots: Type.Integer({ minimum: 1 }) }, closed),
    ),
    /** What the contract gate uses against this simulator when no flags say otherwise. */
    suite: Type.Object(
      {
        account: Type.String(),
        product: Type.String(),
        kind,
        msisdns: Type.Array(Type.String({ pattern: '^(08|62)[0-9]{7,12}$' }), { minItems: 1 }),
        max_invites: Type.Integer({ minimum: 0 }),
      },
      closed,
    ),
    history: Type.Array(
      Type.Object(
        {
          trx_id: Type.String({ minLength: 1, maxLength: 64 }),
          account: Type.String(),
          manager: phone62,
          member: phone62,
          product: Type.String(),
          date: Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' }),
        },
        closed,
      ),
    ),
  },
  closed,
);
export type Fixture = Static<typeof FIXTURE_SCHEMA>;

/** Loads a fixture file, validated by schema and by its cross-references; UsageError names every problem. */
export function loadFixture(path = DEFAULT_FIXTURES): Fixture {
  const fx = checkConfig(FIXTURE_SCHEMA, readYamlFile(path, 'fixture file'), `fixture file ${path}`);
  const problems: string[] = [];
  const accounts = new Set(fx.accounts.map((a) => a.id));
  const keys = new Set<string>();
  for (const a of fx.accounts) {
    if (keys.has(a.api_key)) problems.push(`accounts: two accounts share one api_key (account ${a.id})`);
    keys.add(a.api_key);
  }
  const products = new Set(fx.products.map((p) => p.code));
  const managers = new Map(fx.managers.map((m) => [m.number, m]));
  for (const m of fx.managers) {
    if (!accounts.has(m.account))
      problems.push(`managers: ${maskPhone(m.number)} names unknown account '${m.account}'`);
  }
  const trxIds = new Set<string>();
  for (const h of fx.history) {
    if (!accounts.has(h.account)) problems.push(`history: ${h.trx_id} names unknown account '${h.account}'`);
    if (!managers.has(h.manager)) problems.push(`history: ${h.trx_id} names unknown manager '${maskPhone(h.manager)}'`);
    if (!products.has(h.product)) problems.push(`history: ${h.trx_id} names unknown product '${h.product}'`);
    if (trxIds.has(`${h.account}/${h.trx_id}`)) problems.push(`history: trx_id ${h.trx_id} appears twice`);
    trxIds.add(`${h.account}/${h.trx_id}`);
  }
  if (!accounts.has(fx.suite.account)) problems.push(`suite: unknown account '${fx.suite.account}'`);
  if (!products.has(fx.suite.product)) problems.push(`suite: unknown product '${fx.suite.product}'`);
  if (problems.length)
    throw new UsageError(`fixture file ${path} is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return fx;
}

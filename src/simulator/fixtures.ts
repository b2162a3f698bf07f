import { fileURLToPath } from 'node:url';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { MSISDN_PATTERN } from '../openapi/numbers.js';
import { maskPhone } from '../redact.js';
import { oneOf, readYamlFile, UsageError, validateConfig } from '../shared/config-file.js';

export const DEFAULT_FIXTURES = fileURLToPath(new URL('./fixtures.yaml', import.meta.url));

const phone62 = { type: 'string', pattern: '^62[0-9]{7,13}$' } as const;
const kind = oneOf(['akrab', 'circle']);

/** The simulator's state file; the Fixture type is derived from this schema. */
const FIXTURE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['accounts', 'products', 'managers', 'suite', 'history'],
  properties: {
    accounts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'api_key', 'saldo'],
        properties: {
          id: { type: 'string', minLength: 1 },
          api_key: { type: 'string', minLength: 8 },
          saldo: { type: 'integer', minimum: 0 },
        },
      },
    },
    products: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'name', 'kind', 'price'],
        properties: {
          code: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          kind,
          price: { type: 'integer', minimum: 1 },
        },
      },
    },
    managers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['number', 'account', 'kind', 'slots'],
        properties: { number: phone62, account: { type: 'string' }, kind, slots: { type: 'integer', minimum: 1 } },
      },
    },
    /** What the contract gate uses against this simulator when no flags say otherwise. */
    suite: {
      type: 'object',
      additionalProperties: false,
      required: ['account', 'product', 'kind', 'msisdns', 'max_invites'],
      properties: {
        account: { type: 'string' },
        product: { type: 'string' },
        kind,
        msisdns: { type: 'array', minItems: 1, items: { type: 'string', pattern: MSISDN_PATTERN } },
        max_invites: { type: 'integer', minimum: 0 },
      },
    },
    history: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['trx_id', 'account', 'manager', 'member', 'product', 'date'],
        properties: {
          trx_id: { type: 'string', minLength: 1, maxLength: 64 },
          account: { type: 'string' },
          manager: phone62,
          member: phone62,
          product: { type: 'string' },
          date: { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' },
          /** What cek-trx-id shows for it. @defaultValue SUCCESS */
          status: { type: 'string', minLength: 1, maxLength: 32 },
        },
      },
    },
    /**
     * How each transaction's numbers show, by trx_id, then endpoint and field path (`history-transaksi
     * data[].member_number`: 08, 62 or +62): an account recorded from a provider (bench/fidelity.ts). Under a
     * learned reading only; elsewhere the reading's forms decide.
     */
    forms: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['62', '08', '+62'] },
      },
    },
  },
} as const satisfies JSONSchema;
export type Fixture = FromSchema<typeof FIXTURE_SCHEMA>;

/** Loads a fixture file, validated by schema and by its cross-references; UsageError names every problem. */
export function loadFixture(path = DEFAULT_FIXTURES): Fixture {
  const fx = validateConfig<Fixture>(FIXTURE_SCHEMA, readYamlFile(path, 'fixture file'), `fixture file ${path}`);
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

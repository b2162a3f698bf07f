import { resolve } from 'node:path';
import type { JSONSchema } from 'json-schema-to-ts';
import type { TlsOptions } from '../client/client.js';
import { MSISDN, MSISDN_RULE } from '../openapi/numbers.js';
import { type ClauseId, isClauseId } from '../openapi/types.js';
import type { Grade } from '../reading/index.js';
import { resolveApiKey } from '../shared/api-key.js';
import { readableFile, UsageError } from '../shared/config-file.js';
import { get, isGiven, type Resolved, resolveSettings } from '../shared/settings.js';
import type { Kind } from '../target/target.js';
import type { TrxRule } from '../target/trx-ids.js';
import { concurrencyOf } from './workers.js';

/** A clause the team accepts as broken for now: reported as `warn`, not failed. */
export interface Deviation {
  clause: ClauseId;
  reason: string;
}

/** Everything a contract run needs, resolved from flags, then environment, then the config file. */
export interface ContractConfig {
  /** Target; absent means the embedded simulator, with writes allowed. */
  baseUrl?: string;
  /** Never serialized into H2H_CONTRACT_CONFIG: it travels as H2H_API_KEY only. */
  apiKey?: string;
  /** @defaultValue false for a target; true for the embedded simulator */
  allowWrites: boolean;
  product?: string;
  kind?: Kind;
  /** The only numbers that may be invited. */
  msisdns: string[];
  /**
   * The most invites the run can have charged. @defaultValue 10 for a target; for the embedded simulator, its
   * fixture's cap (filled in by whoever starts it)
   */
  maxInvites?: number;
  knownTrxId?: string;
  /** The transaction IDs the provider accepts: the run's own keep to it. */
  trxRule: TrxRule;
  /** Drift fails the run too. @defaultValue false */
  strict: boolean;
  deviations: Deviation[];
  /** Per-request timeout. @defaultValue 10000 */
  timeoutMs: number;
  /** Bytes of an answer read before it is cut (body_too_large). @defaultValue 33554432 (32 MiB) */
  bodyCap: number;
  /** How to trust an HTTPS target (`--ca-file`, `--server-name`, `--insecure-skip-verify`). */
  tls?: TlsOptions;
  /** Where reports go. @defaultValue 'reports' */
  reportsDir: string;
  /** Run only the scenarios whose requests plain OpenAPI can express (for a validation proxy such as Prism). */
  canonicalOnly: boolean;
  /** Run only the scenarios whose title matches this regular expression. */
  grep?: string;
  /** The gate's own pace, requests per second over the whole run. @defaultValue unlimited */
  rateLimit?: number;
  /** Requests in flight (Playwright workers); workers.ts gives the default. */
  concurrency: number;
  /** `--concurrency` was given: a bound the run holds across its workers, the embedded simulator's too. */
  concurrencyGiven?: true;
  /** Total time one request may wait out rate limits (429, 503 with Retry-After). @defaultValue 30000 */
  maxWaitMs: number;
  /** How long a read of what an invite wrote is tried again before a violation (INV-5, INV-6). @defaultValue 5000 */
  settleMs: number;
  /** The seed of the generated cases (printed in every run); the same seed gives the same cases. */
  seed?: number;
  /** Generated requests per operation in the random phase, and history properties per method. @defaultValue 25 */
  examples: number;
  /** Lookups before the run that learn each record's status (record-kinds.ts). @defaultValue 96 */
  kindLookups?: number;
  /** Exit 0, not 4, when nothing is violated but a clause the run meant to judge could not be. @defaultValue false */
  allowInconclusive: boolean;
  /** An earlier contract-summary.json to compare with (`--baseline`). */
  baseline?: string;
  /** A change of the provider reading of this grade or worse exits 1 (`--fail-on-change GRADE`). */
  failOnChange?: Grade;
  /** Status words the provider is known to use: then any other refusal status is drift. */
  knownStatuses?: string[];
  /** HTTP statuses the provider is known to give refusals: then any other is drift. */
  knownHttpStatuses?: number[];
  /**
   * Options of the embedded simulator (self-tests and demos): a fault, a path prefix, a legal reading. The gate
   * does not read them; whoever starts the simulator (h2h contract, suites/global-setup.ts) validates them.
   */
  simulator: { fault?: string; prefix?: string; legal?: string };
}

/** The config file's keys that are the contract's own, beside the settings of the table (their file keys). */
export const CONTRACT_FILE_EXTRAS = {
  api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
  deviations: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['clause', 'reason'],
      properties: {
        clause: { type: 'string', pattern: '^[A-Z]+-[0-9]+$' },
        reason: { type: 'string', minLength: 3 },
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

/** The numbers that may be invited (`--msisdn`), each checked. */
function testNumbers(r: Resolved): string[] {
  const msisdns = get.list(r, 'msisdn') ?? [];
  for (const m of msisdns)
    if (!MSISDN.test(m))
      throw new UsageError(`${r.sources.msisdn}: test number '${m}' is not an msisdn (${MSISDN_RULE})`);
  return msisdns;
}

/** What writes to a target need: a product and test numbers. */
function checkWrites(r: Resolved, msisdns: readonly string[]): void {
  if (get.str(r, 'base-url') === undefined || !get.bool(r, 'allow-writes')) return;
  if (!get.str(r, 'product'))
    throw new UsageError('--allow-writes needs --product (H2H_PRODUCT): the product code to invite with');
  if (msisdns.length === 0)
    throw new UsageError(
      '--allow-writes needs at least one --msisdn (H2H_MSISDN): the only numbers that may be invited',
    );
}

/** The config file's deviations, each naming a clause that exists. */
function deviationsOf(r: Resolved): Deviation[] {
  return ((r.file?.data.deviations ?? []) as { clause: string; reason: string }[]).map((d) => {
    if (!isClauseId(d.clause)) throw new UsageError(`config file: deviation names unknown clause '${d.clause}'`);
    return { clause: d.clause, reason: d.reason };
  });
}

/** The embedded simulator's options: refused with a base URL. */
function simulatorOptions(r: Resolved): ContractConfig['simulator'] {
  const fault = get.str(r, 'simulator-fault');
  const legal = get.str(r, 'simulator-legal');
  const prefix = get.str(r, 'simulator-prefix');
  for (const [name, v] of [
    ['simulator-fault', fault],
    ['simulator-legal', legal],
    ['simulator-prefix', prefix],
  ] as const)
    if (v !== undefined && get.str(r, 'base-url') !== undefined)
      throw new UsageError(`--${name} applies to the embedded simulator only; it cannot be used with a base URL`);
  if (prefix !== undefined && !/^\/[\w./-]*$/.test(prefix))
    throw new UsageError(`--simulator-prefix must start with /, got '${prefix}'`);
  return {
    ...(fault !== undefined ? { fault } : {}),
    ...(prefix ? { prefix } : {}),
    ...(legal ? { legal } : {}),
  };
}

/** How to trust an HTTPS target; a CA file's path made absolute (Playwright runs from the package's folder). */
function tlsOf(r: Resolved): TlsOptions {
  const caFile = get.str(r, 'ca-file');
  const serverName = get.str(r, 'server-name');
  return {
    ...(caFile ? { caFile: readableFile(resolve(caFile), r.sources['ca-file'] ?? '--ca-file') } : {}),
    ...(serverName ? { serverName } : {}),
    ...(get.bool(r, 'insecure-skip-verify') ? { insecureSkipVerify: true } : {}),
  };
}

/** What the provider is known to answer (`--known-status`, `--known-http-status`): with a list, the rest is drift. */
function knownAnswers(r: Resolved): Pick<ContractConfig, 'knownStatuses' | 'knownHttpStatuses'> {
  const knownHttp = (get.list(r, 'known-http-status') ?? []).map((v) => {
    const n = Number(v);
    if (!/^\d{3}$/.test(v) || n < 100 || n > 599)
      throw new UsageError(`${r.sources['known-http-status']}: '${v}' is not an HTTP status`);
    return n;
  });
  const known = get.list(r, 'known-status');
  return {
    ...(known?.length ? { knownStatuses: known } : {}),
    ...(knownHttp.length ? { knownHttpStatuses: knownHttp } : {}),
  };
}

/** The earlier summary to compare with, and the grade of change that fails the run. */
function baselineOf(r: Resolved): Pick<ContractConfig, 'baseline' | 'failOnChange'> {
  const file = get.str(r, 'baseline');
  const failOnChange = get.str(r, 'fail-on-change');
  if (failOnChange && file === undefined)
    throw new UsageError('--fail-on-change compares with a baseline: give --baseline FILE');
  return { ...(file !== undefined ? { baseline: resolve(file) } : {}), ...(failOnChange ? { failOnChange } : {}) };
}

/**
 * The contract config from a command line's resolved settings (the one settings table: flag > environment >
 * config file > default), and what only the contract checks: the key (resolveApiKey: the one rule of every
 * command), test numbers, what writes need, deviations, the embedded simulator's options. Every problem is a
 * UsageError with an exact message.
 */
export function resolveContractConfig(r: Resolved, env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const baseUrl = get.str(r, 'base-url');
  const apiKey = resolveApiKey(r, env);
  if (baseUrl !== undefined && apiKey === undefined)
    throw new UsageError(
      'a target needs its API key: --api-key, --api-key-file, H2H_API_KEY, or api_key_file/api_key_env in the config file',
    );
  const msisdns = testNumbers(r);
  checkWrites(r, msisdns);
  // In this order, so that of two problems the same one is named first as ever.
  const deviations = deviationsOf(r);
  const simulator = simulatorOptions(r);
  const tls = tlsOf(r);
  const known = knownAnswers(r);
  const baseline = baselineOf(r);
  const product = get.str(r, 'product');
  const kind = get.str(r, 'kind');
  const trx = get.str(r, 'trx-id');
  const rate = get.num(r, 'rate-limit');
  const concurrency = get.num(r, 'concurrency');
  const seed = get.num(r, 'seed');
  const grep = get.str(r, 'grep');
  return {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    allowWrites: baseUrl === undefined ? true : get.bool(r, 'allow-writes'),
    ...(product ? { product } : {}),
    ...(kind ? { kind } : {}),
    msisdns,
    // The embedded simulator's cap is its fixture's, unless one is given.
    ...(baseUrl !== undefined || isGiven(r, 'max-invites') ? { maxInvites: get.num(r, 'max-invites') } : {}),
    ...(trx ? { knownTrxId: trx } : {}),
    trxRule: { maxLength: get.num(r, 'trx-id-length'), chars: get.str(r, 'trx-id-chars') },
    strict: get.bool(r, 'strict'),
    allowInconclusive: get.bool(r, 'allow-inconclusive'),
    ...baseline,
    canonicalOnly: get.bool(r, 'canonical-only'),
    deviations,
    timeoutMs: get.num(r, 'timeout'),
    bodyCap: get.num(r, 'body-cap'),
    ...(Object.keys(tls).length ? { tls } : {}),
    reportsDir: resolve(get.str(r, 'reports-dir')),
    ...(grep !== undefined ? { grep } : {}),
    ...(seed !== undefined ? { seed } : {}),
    examples: get.num(r, 'examples'),
    kindLookups: get.num(r, 'kind-lookups'),
    ...(rate ? { rateLimit: rate } : {}),
    // Fixed here, before the embedded simulator gives the run a base URL.
    concurrency: concurrencyOf({
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(baseUrl ? { baseUrl } : {}),
    }),
    ...(concurrency !== undefined ? { concurrencyGiven: true as const } : {}),
    maxWaitMs: get.num(r, 'max-wait'),
    settleMs: get.num(r, 'settle'),
    ...known,
    simulator,
  };
}

/** The loud line `--insecure-skip-verify` earns, or undefined without it. */
export function insecureWarning(cfg: Pick<ContractConfig, 'tls'>, command: string): string | undefined {
  return cfg.tls?.insecureSkipVerify
    ? `h2h ${command}: WARNING: --insecure-skip-verify: the target's certificate is not verified; whoever sits between here and it can read the API key and every answer. For a test target only; for a private CA give --ca-file instead.`
    : undefined;
}

/** The contract's settings from the environment alone (a Playwright process started without h2h contract). */
export function contractSettingsFromEnv(env: NodeJS.ProcessEnv): ContractConfig {
  return resolveContractConfig(resolveSettings('contract', [], { env, fileExtras: CONTRACT_FILE_EXTRAS }), env);
}

/** The config inside Playwright: the one `h2h contract` resolved, or resolved here from the environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  if (env.H2H_CONTRACT_CONFIG) {
    const cfg = JSON.parse(env.H2H_CONTRACT_CONFIG) as ContractConfig;
    return { ...cfg, ...(env.H2H_API_KEY ? { apiKey: env.H2H_API_KEY } : {}) };
  }
  return contractSettingsFromEnv(env);
}

import { dirname, resolve } from 'node:path';
import type { JSONSchema } from 'json-schema-to-ts';
import type { TlsOptions } from '../client/client.js';
import { MSISDN, MSISDN_RULE } from '../openapi/numbers.js';
import { type ClauseId, isClauseId } from '../openapi/types.js';
import { readableFile, readSecretFile, UsageError } from '../shared/config-file.js';
import { defaultNumber, get, isGiven, type Resolved, resolveSettings } from '../shared/settings.js';
import type { Grade } from './reading-changes.js';
import type { Kind } from './target.js';
import { DEFAULT_TRX_RULE, type TrxRule } from './trx-ids.js';
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
  /** Total time one request may wait out rate limits (429, 503 with Retry-After). @defaultValue 30000 */
  maxWaitMs: number;
  /** How long a read of what an invite wrote is tried again before a violation (INV-5, INV-6). @defaultValue 5000 */
  settleMs: number;
  /** The seed of the generated cases (printed in every run); the same seed gives the same cases. */
  seed?: number;
  /** Generated requests per operation in the random phase, and history properties per method. @defaultValue 25 */
  examples: number;
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

/** Which of two settings given in different places wins: a flag over the environment over the file. */
function rank(source: string | undefined): number {
  if (!source || source === 'default') return 3;
  if (source.startsWith('--')) return 0;
  if (source.startsWith('config file')) return 2;
  return 1;
}

/**
 * The contract config from a command line's resolved settings (the one settings table: flag > environment >
 * config file > default), and what only the contract checks: the key (given, or read from a file or a variable
 * the file names), test numbers, what writes need, deviations, the embedded simulator's options. Every problem
 * is a UsageError with an exact message.
 */
export function resolveContractConfig(r: Resolved, env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const file = r.file;
  const baseUrl = get.str(r, 'base-url');
  // The key: given as such, or read from a file (a path in the config file is read from the file's own folder),
  // whichever was given higher (flag, environment, file); else the variable the config file names.
  const keyFile = get.str(r, 'api-key-file');
  const keyFilePath =
    keyFile && file && r.sources['api-key-file']?.startsWith('config file')
      ? resolve(dirname(file.path), keyFile)
      : keyFile;
  let apiKey = get.str(r, 'api-key');
  if (keyFilePath && (apiKey === undefined || rank(r.sources['api-key-file']) < rank(r.sources['api-key'])))
    apiKey = readSecretFile(keyFilePath, r.sources['api-key-file'] ?? '--api-key-file');
  const keyEnv = file?.data.api_key_env as string | undefined;
  if (apiKey === undefined && keyEnv) {
    apiKey = env[keyEnv];
    if (!apiKey) throw new UsageError(`config file: api_key_env names ${keyEnv}, which is not set`);
  }
  if (apiKey === '') throw new UsageError('the API key is empty');
  if (baseUrl !== undefined && apiKey === undefined) {
    throw new UsageError(
      'a target needs its API key: --api-key, --api-key-file, H2H_API_KEY, or api_key_file/api_key_env in the config file',
    );
  }
  const msisdns = get.list(r, 'msisdn') ?? [];
  for (const m of msisdns)
    if (!MSISDN.test(m))
      throw new UsageError(`${r.sources.msisdn}: test number '${m}' is not an msisdn (${MSISDN_RULE})`);
  const allowWrites = get.bool(r, 'allow-writes') ?? false;
  const product = get.str(r, 'product');
  if (baseUrl !== undefined && allowWrites) {
    if (!product) throw new UsageError('--allow-writes needs --product (H2H_PRODUCT): the product code to invite with');
    if (msisdns.length === 0)
      throw new UsageError(
        '--allow-writes needs at least one --msisdn (H2H_MSISDN): the only numbers that may be invited',
      );
  }
  const deviations = ((file?.data.deviations ?? []) as { clause: string; reason: string }[]).map((d) => {
    if (!isClauseId(d.clause)) throw new UsageError(`config file: deviation names unknown clause '${d.clause}'`);
    return { clause: d.clause, reason: d.reason };
  });
  const fault = get.str(r, 'simulator-fault');
  const legal = get.str(r, 'simulator-legal');
  const prefix = get.str(r, 'simulator-prefix');
  for (const [name, v] of [
    ['simulator-fault', fault],
    ['simulator-legal', legal],
    ['simulator-prefix', prefix],
  ] as const)
    if (v !== undefined && baseUrl !== undefined)
      throw new UsageError(`--${name} applies to the embedded simulator only; it cannot be used with a base URL`);
  if (prefix !== undefined && !/^\/[\w./-]*$/.test(prefix))
    throw new UsageError(`--simulator-prefix must start with /, got '${prefix}'`);
  const caFile = get.str(r, 'ca-file');
  const serverName = get.str(r, 'server-name');
  // Absolute: Playwright runs from the package's folder, not the user's.
  const tls: TlsOptions = {
    ...(caFile ? { caFile: readableFile(resolve(caFile), r.sources['ca-file'] ?? '--ca-file') } : {}),
    ...(serverName ? { serverName } : {}),
    ...(get.bool(r, 'insecure-skip-verify') ? { insecureSkipVerify: true } : {}),
  };
  const knownHttp = (get.list(r, 'known-http-status') ?? []).map((v) => {
    const n = Number(v);
    if (!/^\d{3}$/.test(v) || n < 100 || n > 599)
      throw new UsageError(`${r.sources['known-http-status']}: '${v}' is not an HTTP status`);
    return n;
  });
  const known = get.list(r, 'known-status');
  const kind = get.str(r, 'kind') as Kind | undefined;
  const trxRule: TrxRule = {
    maxLength: get.num(r, 'trx-id-length') ?? defaultNumber('trx-id-length'),
    chars: (get.str(r, 'trx-id-chars') ?? DEFAULT_TRX_RULE.chars) as TrxRule['chars'],
  };
  const maxInvites = get.num(r, 'max-invites');
  const trx = get.str(r, 'trx-id');
  const rate = get.num(r, 'rate-limit');
  const concurrency = get.num(r, 'concurrency');
  const seed = get.num(r, 'seed');
  const grep = get.str(r, 'grep');
  const baselineFile = get.str(r, 'baseline');
  const baseline = baselineFile === undefined ? undefined : resolve(baselineFile);
  const failOnChange = get.str(r, 'fail-on-change') as Grade | undefined;
  if (failOnChange && !baseline)
    throw new UsageError('--fail-on-change compares with a baseline: give --baseline FILE');
  return {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    allowWrites: baseUrl === undefined ? true : allowWrites,
    ...(product ? { product } : {}),
    ...(kind ? { kind } : {}),
    msisdns,
    // The embedded simulator's cap is its fixture's, unless one is given.
    ...(baseUrl !== undefined || isGiven(r, 'max-invites')
      ? { maxInvites: maxInvites ?? defaultNumber('max-invites') }
      : {}),
    ...(trx ? { knownTrxId: trx } : {}),
    trxRule,
    strict: get.bool(r, 'strict') ?? false,
    allowInconclusive: get.bool(r, 'allow-inconclusive') ?? false,
    ...(baseline ? { baseline } : {}),
    ...(failOnChange ? { failOnChange } : {}),
    canonicalOnly: get.bool(r, 'canonical-only') ?? false,
    deviations,
    timeoutMs: get.num(r, 'timeout') ?? defaultNumber('timeout'),
    bodyCap: get.num(r, 'body-cap') ?? defaultNumber('body-cap'),
    ...(Object.keys(tls).length ? { tls } : {}),
    reportsDir: resolve(get.str(r, 'reports-dir') ?? 'reports'),
    ...(grep !== undefined ? { grep } : {}),
    ...(seed !== undefined ? { seed } : {}),
    examples: get.num(r, 'examples') ?? defaultNumber('examples'),
    ...(rate ? { rateLimit: rate } : {}),
    // Fixed here, before the embedded simulator gives the run a base URL.
    concurrency: concurrencyOf({
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(baseUrl ? { baseUrl } : {}),
    }),
    maxWaitMs: get.num(r, 'max-wait') ?? defaultNumber('max-wait'),
    settleMs: get.num(r, 'settle') ?? defaultNumber('settle'),
    ...(known?.length ? { knownStatuses: known } : {}),
    ...(knownHttp.length ? { knownHttpStatuses: knownHttp } : {}),
    simulator: {
      ...(fault !== undefined ? { fault } : {}),
      ...(prefix ? { prefix } : {}),
      ...(legal ? { legal } : {}),
    },
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

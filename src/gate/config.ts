import { dirname, resolve } from 'node:path';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { type ClauseId, isClauseId } from '../openapi/types.js';
import { refuseKeyInFile } from '../redact.js';
import { oneOf, readSecretFile, readYamlFile, UsageError, validateConfig } from '../shared/config-file.js';
import { parseBoolean, parseDuration, parseRate, refuseUserinfo } from '../shared/config-values.js';
import type { Kind } from './target.js';

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
  /** Drift fails the run too. @defaultValue false */
  strict: boolean;
  deviations: Deviation[];
  /** Per-request timeout. @defaultValue 10000 */
  timeoutMs: number;
  /** Where reports go. @defaultValue 'reports' */
  reportsDir: string;
  /** Run only the scenarios whose requests plain OpenAPI can express (for a validation proxy such as Prism). */
  canonicalOnly: boolean;
  /** Run only the scenarios whose title matches this regular expression. */
  grep?: string;
  /** The gate's own pace, requests per second over the whole run. @defaultValue unlimited */
  rateLimit?: number;
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
  /** Status words the provider is known to use: then any other refusal status is drift. */
  knownStatuses?: string[];
  /** HTTP statuses the provider is known to give refusals: then any other is drift. */
  knownHttpStatuses?: number[];
  /**
   * Options of the embedded simulator (self-tests and demos): a fault, a path prefix, a legal reading. The gate
   * does not read them; whoever starts the simulator (h2h contract, src/gate/suites/global-setup.ts) validates them.
   */
  simulator: { fault?: string; prefix?: string; legal?: string };
}

export const DEFAULT_MAX_INVITES = 10;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_WAIT_MS = 30_000;
export const DEFAULT_SETTLE_MS = 5_000;
export const DEFAULT_EXAMPLES = 25;

const DURATION = '^[0-9]+(ms|s)$';

/** The config file: what a team commits (no key in it, ever). Its type is derived from this schema. */
const FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    base_url: { type: 'string', pattern: '^https?://' },
    api_key_file: { type: 'string', minLength: 1 },
    api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    allow_writes: { type: 'boolean' },
    product: { type: 'string', minLength: 1 },
    kind: oneOf(['akrab', 'circle']),
    msisdns: { type: 'array', items: { type: 'string', pattern: '^(08|62)[0-9]{7,12}$' } },
    max_invites: { type: 'integer', minimum: 0, maximum: 1000 },
    trx_id: { type: 'string', minLength: 1, maxLength: 64 },
    strict: { type: 'boolean' },
    allow_inconclusive: { type: 'boolean' },
    timeout: { type: 'string', pattern: DURATION },
    rate_limit: { type: 'string', minLength: 1 },
    max_wait: { type: 'string', pattern: DURATION },
    settle: { type: 'string', pattern: DURATION },
    seed: { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 },
    examples: { type: 'integer', minimum: 0, maximum: 10_000 },
    known_statuses: { type: 'array', items: { type: 'string', minLength: 1 } },
    known_http_statuses: { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 } },
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
  },
} as const satisfies JSONSchema;
type FileConfig = FromSchema<typeof FILE_SCHEMA>;

/** Flags of `h2h contract`, as parsed. */
export interface ContractFlags {
  config?: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeyFile?: string;
  allowWrites?: boolean;
  product?: string;
  kind?: string;
  msisdn?: string[];
  maxInvites?: string;
  trxId?: string;
  strict?: boolean;
  canonicalOnly?: boolean;
  timeout?: string;
  reportsDir?: string;
  grep?: string;
  seed?: string;
  examples?: string;
  rateLimit?: string;
  maxWait?: string;
  settle?: string;
  simulatorFault?: string;
  simulatorPrefix?: string;
  simulatorLegal?: string;
  allowInconclusive?: boolean;
}

const MSISDN = /^(08|62)[0-9]{7,12}$/;

/**
 * Resolves the contract config: flags, then environment (H2H_*), then the YAML file (--config or H2H_CONFIG).
 * Every problem is a UsageError with an exact message.
 */
export function resolveContractConfig(flags: ContractFlags, env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const path = flags.config ?? env.H2H_CONFIG;
  const raw = path ? (readYamlFile(path, 'config file') ?? {}) : {};
  refuseKeyInFile(raw, path);
  const file: FileConfig = path ? validateConfig<FileConfig>(FILE_SCHEMA, raw, `config file ${path}`) : {};

  const baseUrl = flags.baseUrl ?? (env.H2H_BASE_URL || undefined) ?? file.base_url;
  if (baseUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new UsageError(`base URL '${baseUrl}' is not a URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new UsageError(`base URL must be http or https, got '${u.protocol}'`);
    if (u.search || u.hash)
      throw new UsageError('base URL must not carry a query string or fragment (the key would leak into it)');
    refuseUserinfo(baseUrl, 'base URL');
  }

  let apiKey = flags.apiKey;
  if (apiKey === undefined && flags.apiKeyFile) apiKey = readSecretFile(flags.apiKeyFile, '--api-key-file');
  if (apiKey === undefined && env.H2H_API_KEY) apiKey = env.H2H_API_KEY;
  // A path in the config file is read from the file's own folder.
  if (apiKey === undefined && file.api_key_file && path)
    apiKey = readSecretFile(resolve(dirname(path), file.api_key_file), 'api_key_file');
  if (apiKey === undefined && file.api_key_env) {
    apiKey = env[file.api_key_env];
    if (!apiKey) throw new UsageError(`config file: api_key_env names ${file.api_key_env}, which is not set`);
  }
  if (apiKey === '') throw new UsageError('the API key is empty');
  if (baseUrl !== undefined && apiKey === undefined) {
    throw new UsageError(
      'a target needs its API key: --api-key, --api-key-file, H2H_API_KEY, or api_key_file/api_key_env in the config file',
    );
  }

  const kind = flags.kind ?? (env.H2H_KIND || undefined) ?? file.kind;
  if (kind !== undefined && kind !== 'akrab' && kind !== 'circle')
    throw new UsageError(`--kind must be akrab or circle, got '${kind}'`);
  const msisdns = flags.msisdn?.length
    ? flags.msisdn
    : env.H2H_TEST_MSISDNS
      ? env.H2H_TEST_MSISDNS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : (file.msisdns ?? []);
  for (const m of msisdns)
    if (!MSISDN.test(m)) throw new UsageError(`test number '${m}' is not an msisdn (digits, beginning with 08 or 62)`);
  const maxRaw = flags.maxInvites ?? (env.H2H_MAX_INVITES || undefined);
  let maxInvites = file.max_invites ?? (baseUrl !== undefined ? DEFAULT_MAX_INVITES : undefined);
  if (maxRaw !== undefined) {
    if (!/^\d+$/.test(maxRaw) || Number(maxRaw) > 1000)
      throw new UsageError(`--max-invites must be an integer from 0 to 1000, got '${maxRaw}'`);
    maxInvites = Number(maxRaw);
  }
  const allowWrites = flags.allowWrites ?? parseBoolean(env.H2H_ALLOW_WRITES) ?? file.allow_writes ?? false;
  const product = flags.product ?? (env.H2H_PRODUCT_CODE || undefined) ?? file.product;
  if (baseUrl !== undefined && allowWrites) {
    if (!product)
      throw new UsageError('--allow-writes needs --product (H2H_PRODUCT_CODE): the product code to invite with');
    if (msisdns.length === 0)
      throw new UsageError(
        '--allow-writes needs at least one --msisdn (H2H_TEST_MSISDNS): the only numbers that may be invited',
      );
  }
  const deviations = (file.deviations ?? []).map((d) => {
    if (!isClauseId(d.clause)) throw new UsageError(`config file: deviation names unknown clause '${d.clause}'`);
    return { clause: d.clause, reason: d.reason };
  });
  const timeoutRaw = flags.timeout ?? (env.H2H_TIMEOUT || undefined) ?? file.timeout;
  const fault = flags.simulatorFault ?? (env.H2H_SIMULATOR_FAULT || undefined);
  if (fault !== undefined && baseUrl !== undefined)
    throw new UsageError('--simulator-fault applies to the embedded simulator only; it cannot be used with a base URL');
  const legal = flags.simulatorLegal ?? (env.H2H_SIMULATOR_LEGAL || undefined);
  if (legal !== undefined && baseUrl !== undefined)
    throw new UsageError('--simulator-legal applies to the embedded simulator only; it cannot be used with a base URL');
  const prefix = flags.simulatorPrefix ?? (env.H2H_SIMULATOR_PREFIX || undefined);
  if (prefix !== undefined && !/^\/[\w./-]*$/.test(prefix))
    throw new UsageError(`--simulator-prefix must start with /, got '${prefix}'`);
  const rateRaw = flags.rateLimit ?? (env.H2H_RATE_LIMIT || undefined) ?? file.rate_limit;
  const rate = rateRaw === undefined ? undefined : parseRate(rateRaw);
  if (rate === 'invalid')
    throw new UsageError(`--rate-limit must be requests per second like 10/s or 600/m, got '${rateRaw}'`);
  const maxWaitRaw = flags.maxWait ?? (env.H2H_MAX_WAIT || undefined) ?? file.max_wait;
  const settleRaw = flags.settle ?? (env.H2H_SETTLE || undefined) ?? file.settle;
  const seedRaw = flags.seed ?? (env.H2H_SEED || undefined);
  if (seedRaw !== undefined && (!/^\d+$/.test(seedRaw) || Number(seedRaw) > 2 ** 31 - 1))
    throw new UsageError(`--seed must be an integer from 0 to ${2 ** 31 - 1}, got '${seedRaw}'`);
  const seed = seedRaw !== undefined ? Number(seedRaw) : file.seed;
  const examplesRaw = flags.examples ?? (env.H2H_EXAMPLES || undefined);
  if (examplesRaw !== undefined && (!/^\d+$/.test(examplesRaw) || Number(examplesRaw) > 10_000))
    throw new UsageError(`--examples must be an integer from 0 to 10000, got '${examplesRaw}'`);
  const examples = examplesRaw !== undefined ? Number(examplesRaw) : (file.examples ?? DEFAULT_EXAMPLES);
  const grep = flags.grep ?? (env.H2H_GREP || undefined);
  if (grep !== undefined) {
    try {
      new RegExp(grep);
    } catch (err) {
      throw new UsageError(`--grep: ${(err as Error).message}`);
    }
  }
  const trx = flags.trxId ?? (env.H2H_KNOWN_TRX_ID || undefined) ?? file.trx_id;

  return {
    ...(baseUrl !== undefined ? { baseUrl: baseUrl.replace(/\/+$/, '') } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    allowWrites: baseUrl === undefined ? true : allowWrites,
    ...(product ? { product } : {}),
    ...(kind ? { kind: kind as Kind } : {}),
    msisdns,
    ...(maxInvites !== undefined ? { maxInvites } : {}),
    ...(trx ? { knownTrxId: trx } : {}),
    strict: flags.strict ?? parseBoolean(env.H2H_STRICT) ?? file.strict ?? false,
    allowInconclusive:
      flags.allowInconclusive ?? parseBoolean(env.H2H_ALLOW_INCONCLUSIVE) ?? file.allow_inconclusive ?? false,
    canonicalOnly: flags.canonicalOnly ?? parseBoolean(env.H2H_CANONICAL_ONLY) ?? false,
    deviations,
    timeoutMs: timeoutRaw ? parseDuration(timeoutRaw, '--timeout') : DEFAULT_TIMEOUT_MS,
    reportsDir: resolve(flags.reportsDir ?? (env.H2H_REPORTS_DIR || undefined) ?? 'reports'),
    ...(grep !== undefined ? { grep } : {}),
    ...(seed !== undefined ? { seed } : {}),
    examples,
    ...(rate ? { rateLimit: rate.perSecond } : {}),
    maxWaitMs: maxWaitRaw ? parseDuration(maxWaitRaw, '--max-wait', { zero: true }) : DEFAULT_MAX_WAIT_MS,
    settleMs: settleRaw ? parseDuration(settleRaw, '--settle', { zero: true }) : DEFAULT_SETTLE_MS,
    ...(file.known_statuses ? { knownStatuses: file.known_statuses } : {}),
    ...(file.known_http_statuses ? { knownHttpStatuses: file.known_http_statuses } : {}),
    simulator: {
      ...(fault !== undefined ? { fault } : {}),
      ...(prefix ? { prefix } : {}),
      ...(legal ? { legal } : {}),
    },
  };
}

/** The config inside Playwright: the one `h2h contract` resolved, or resolved here from the environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  if (env.H2H_CONTRACT_CONFIG) {
    const cfg = JSON.parse(env.H2H_CONTRACT_CONFIG) as ContractConfig;
    return { ...cfg, ...(env.H2H_API_KEY ? { apiKey: env.H2H_API_KEY } : {}) };
  }
  return resolveContractConfig({}, env);
}

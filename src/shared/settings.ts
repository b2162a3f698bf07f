import { type ParseArgsConfig, parseArgs } from 'node:util';
import parseDuration from 'parse-duration';
import { readYamlFile, UsageError, validateConfig } from './config-file.js';
import { didYouMean } from './did-you-mean.js';

export { didYouMean };

/** The commands of the CLI, by name. */
export const COMMAND_NAMES = [
  'contract',
  'replay',
  'probe',
  'mock',
  'validate',
  'docs',
  'lint',
  'diff',
  'init',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/**
 * How a setting's text is read: `duration` needs a unit (`500ms`, `1.5s`, `1m30s`), `rate` is `N/s` or `N/m`,
 * `url` is an http(s) base URL without query, fragment or user:password@, `listen` is `host:port`, `list` takes
 * the flag again (or a comma-separated variable), `regex` must compile.
 */
export type SettingType =
  | 'string'
  | 'secret'
  | 'path'
  | 'boolean'
  | 'integer'
  | 'duration'
  | 'rate'
  | 'url'
  | 'listen'
  | 'enum'
  | 'list'
  | 'regex';

/** One setting: its flag, environment variable, config-file key, type, default and help, in one row. */
export interface Setting {
  /** The flag's name without `--`; the setting's name everywhere. */
  flag: string;
  type: SettingType;
  /** What the value is called in usage lines (`CODE`, `DIR`); by type when absent. */
  arg?: string;
  /** Commands that take it. */
  commands: readonly CommandName[];
  help: string;
  /** A command's own words for it, when they differ. */
  helpFor?: Partial<Record<CommandName, string>>;
  /** Shown in --help and docs/cli.md; the value used when nothing gives one. */
  default?: string;
  defaultFor?: Partial<Record<CommandName, string>>;
  /** `enum`: its values. */
  values?: readonly string[];
  /** `integer`: bounds. */
  min?: number;
  max?: number;
  /** `duration`: whether 0 is allowed. */
  zero?: boolean;
  /** The config-file key, where the command reads a file (`--config`); absent: not in the file. */
  file?: string;
  /** The environment variable: `H2H_` + the flag's name; null where a command-line switch only makes sense. */
  env?: null;
  /**
   * Old names kept working for one minor version, each with a deprecation line naming the new one (`flagFor`: the
   * commands whose old flag it is).
   */
  deprecated?: {
    /** Old flags, all standing for this one (--host and --port for --listen). */
    flags?: readonly string[];
    flagFor?: readonly CommandName[];
    env?: string;
    /** The new value from the old flags' values (by old name); default: the one value as it is. */
    convert?: (old: Readonly<Record<string, string>>) => string;
  };
}

/** The environment variable of a setting. */
export function envName(s: Setting): string | undefined {
  return s.env === null ? undefined : `H2H_${s.flag.toUpperCase().replace(/-/g, '_')}`;
}

const TARGET: readonly CommandName[] = ['contract', 'replay'];

/**
 * Every setting of every command: the one table the CLI parses, layers (flag > environment > config file >
 * default), validates, and writes usage lines, --help and docs/cli.md from. Typed row by row (`as const`): a
 * setting's name, type and default are known to the compiler, so `get.str(r, 'prodcut')` does not compile.
 */
export const SETTINGS = [
  {
    flag: 'config',
    type: 'path',
    commands: ['contract', 'replay', 'probe'],
    help: 'YAML file with the settings below under their file keys (never the key itself)',
  },
  {
    flag: 'base-url',
    type: 'url',
    commands: ['contract', 'replay', 'probe'],
    file: 'base_url',
    help: 'the target (a path prefix is kept); absent: the embedded simulator, writes allowed',
    helpFor: { probe: 'one target without a file (its label --name; its key --api-key or --api-key-file)' },
  },
  {
    flag: 'api-key',
    type: 'secret',
    commands: ['contract', 'replay', 'probe', 'mock'],
    help: 'the key (prefer --api-key-file or the environment: a flag shows in the process list)',
    helpFor: { mock: "the demo account's key (default the fixture's, printed as H2H_API_KEY; a given one is not)" },
  },
  {
    flag: 'api-key-file',
    type: 'path',
    commands: ['contract', 'replay', 'probe'],
    file: 'api_key_file',
    help: "a file whose first line is the key (in a config file: relative to the file's folder)",
  },
  {
    flag: 'allow-writes',
    type: 'boolean',
    commands: TARGET,
    file: 'allow_writes',
    default: 'false',
    help: 'send the invites that can succeed (and be charged); without it only requests bound to be refused',
  },
  {
    flag: 'product',
    arg: 'CODE',
    type: 'string',
    commands: TARGET,
    file: 'product',
    help: 'product code for invites',
    deprecated: { env: 'H2H_PRODUCT_CODE' },
  },
  {
    flag: 'kind',
    type: 'enum',
    values: ['akrab', 'circle'],
    commands: TARGET,
    file: 'kind',
    help: 'the kind of that product, sent where a scenario needs a kind',
  },
  {
    flag: 'msisdn',
    arg: 'N',
    type: 'list',
    commands: TARGET,
    file: 'msisdns',
    help: 'a number that may be invited; repeat the flag (or comma-separate the variable) for more',
    deprecated: { env: 'H2H_TEST_MSISDNS' },
  },
  {
    flag: 'max-invites',
    type: 'integer',
    min: 0,
    max: 1000,
    commands: TARGET,
    file: 'max_invites',
    default: '10',
    help: 'the most invites the run can have charged: one a conformant API carries out counts when sent, one it must refuse only if accepted',
  },
  {
    flag: 'trx-id',
    arg: 'ID',
    type: 'string',
    commands: ['contract', 'probe'],
    file: 'trx_id',
    help: 'a known transaction for lookups, and the used trx_id that guards read-only invites (default: one from history)',
    helpFor: { probe: 'the transaction cek-trx-id looks up (default: the newest an earlier history read showed)' },
    deprecated: { env: 'H2H_KNOWN_TRX_ID' },
  },
  {
    flag: 'trx-id-length',
    arg: 'N',
    type: 'integer',
    min: 12,
    max: 64,
    commands: TARGET,
    file: 'trx_id_length',
    default: '20',
    help: "the longest transaction ID the provider accepts: the run's own IDs are at most this long (longer ones go out only where a refusal or an echo is judged)",
  },
  {
    flag: 'trx-id-chars',
    arg: 'SET',
    type: 'enum',
    values: ['alnum', 'upper', 'digits'],
    commands: TARGET,
    file: 'trx_id_chars',
    default: 'alnum',
    help: "the characters the provider accepts in a transaction ID: letters and digits, upper-case letters and digits, or digits only (the run's own IDs keep to them)",
  },
  {
    flag: 'strict',
    type: 'boolean',
    commands: ['contract', 'validate'],
    file: 'strict',
    default: 'false',
    help: 'drift (fields and statuses openapi.yaml does not name) fails the run',
  },
  {
    flag: 'known-status',
    arg: 'WORD',
    type: 'list',
    commands: ['contract', 'validate'],
    file: 'known_statuses',
    help: 'a status word the provider is known to use (repeat): with a list, another refusal status is drift',
  },
  {
    flag: 'known-http-status',
    arg: 'CODE',
    type: 'list',
    commands: ['contract'],
    file: 'known_http_statuses',
    help: 'an HTTP status the provider is known to give refusals (repeat): with a list, another one is drift',
  },
  {
    flag: 'canonical-only',
    type: 'boolean',
    commands: ['contract'],
    default: 'false',
    help: 'only the requests plain OpenAPI can express (canonical names, valid values): for a validation proxy',
  },
  {
    flag: 'allow-inconclusive',
    type: 'boolean',
    commands: ['contract'],
    file: 'allow_inconclusive',
    default: 'false',
    help: 'exit 0, not 4, when nothing is violated but a clause the run meant to judge could not be judged',
  },
  {
    flag: 'baseline',
    arg: 'FILE',
    type: 'path',
    commands: ['contract'],
    file: 'baseline',
    help: 'an earlier contract-summary.json: the summary adds what changed since (clauses, drift, the provider reading)',
  },
  {
    flag: 'fail-on-change',
    arg: 'GRADE',
    type: 'enum',
    values: ['breaking', 'warning', 'info'],
    commands: ['contract'],
    file: 'fail_on_change',
    help: 'exit 1 when the provider reading changed since --baseline by a change of this grade or worse (breaking: a word, code or form a client switches on; warning; info: any change). A fact, not a violation: off by default',
  },
  {
    flag: 'timeout',
    type: 'duration',
    commands: ['contract', 'replay', 'probe'],
    file: 'timeout',
    default: '10s',
    help: 'per request, from name resolution to the last byte',
    helpFor: { probe: 'per request; the three probes of a round run at once and must end within the interval' },
  },
  {
    flag: 'rate-limit',
    type: 'rate',
    commands: TARGET,
    file: 'rate_limit',
    help: "the gate's own pace over the whole run, e.g. 10/s or 600/m (default: unpaced)",
  },
  {
    flag: 'concurrency',
    arg: 'N',
    type: 'integer',
    min: 1,
    max: 64,
    commands: ['contract'],
    file: 'concurrency',
    help: 'the most requests in flight against the target, across every worker, whatever the CPU count (default 4 against a target, 2 against the embedded simulator); writes keep their order',
  },
  {
    flag: 'max-wait',
    type: 'duration',
    zero: true,
    commands: TARGET,
    file: 'max_wait',
    default: '30s',
    help: 'total time one request may wait out rate limits (429, 503 with Retry-After)',
  },
  {
    flag: 'settle',
    type: 'duration',
    zero: true,
    commands: TARGET,
    file: 'settle',
    default: '5s',
    help: 'how long a read of what an invite wrote is tried again before INV-5/INV-6 are violated',
  },
  {
    flag: 'reports-dir',
    arg: 'DIR',
    type: 'path',
    commands: ['contract', 'replay', 'docs'],
    file: 'reports_dir',
    default: 'reports',
    help: 'where reports go',
    helpFor: {
      replay: 'where the saved failures are read from (<dir>/failures/)',
      docs: 'the reference goes to <dir>/docs/',
    },
    deprecated: { flags: ['out'], flagFor: ['docs'] },
  },
  {
    flag: 'grep',
    type: 'regex',
    commands: ['contract'],
    help: "run only the scenarios whose title matches, e.g. 'HIS-3'",
  },
  {
    flag: 'seed',
    type: 'integer',
    min: 0,
    max: 2 ** 31 - 1,
    commands: ['contract'],
    file: 'seed',
    help: 'seed of the generated cases (default: a new one, printed); the same seed and data give the same cases',
  },
  {
    flag: 'examples',
    type: 'integer',
    min: 0,
    max: 10_000,
    commands: TARGET,
    file: 'examples',
    default: '25',
    help: 'generated requests per operation in the random phase, and history properties per method',
  },
  {
    flag: 'kind-lookups',
    arg: 'N',
    type: 'integer',
    min: 0,
    max: 1000,
    commands: TARGET,
    file: 'kind_lookups',
    default: '96',
    help: "lookups of the account's records before the run, to learn each one's status where history shows none: the gate then looks up, filters for and compares one record of every kind (96 see every status of 5 % or more of an account of a few hundred records, 99 times in 100)",
  },
  {
    flag: 'simulator-fault',
    arg: 'NAME',
    type: 'string',
    commands: ['contract'],
    help: 'embedded simulator only: start it with a fault (h2h mock --help lists them)',
  },
  {
    flag: 'simulator-prefix',
    arg: '/P',
    type: 'string',
    commands: ['contract'],
    help: 'embedded simulator only: serve the API under a path prefix',
  },
  {
    flag: 'simulator-legal',
    arg: 'R',
    type: 'string',
    commands: ['contract'],
    help: 'embedded simulator only: a legal reading, knob=value,... or a profile (h2h mock --help)',
  },
  {
    flag: 'name',
    arg: 'NAME',
    type: 'string',
    commands: ['probe'],
    default: 'default',
    help: "the --base-url target's label in every metric",
  },
  {
    flag: 'ca-file',
    arg: 'PEM',
    type: 'path',
    commands: ['contract', 'replay', 'probe'],
    help: "HTTPS: the CAs to trust instead of the system's (a private CA; to add one to the system's, NODE_EXTRA_CA_CERTS=PEM)",
  },
  {
    flag: 'server-name',
    arg: 'NAME',
    type: 'string',
    commands: ['contract', 'replay', 'probe'],
    help: "HTTPS: the name the certificate must carry, when not the URL's host",
  },
  {
    flag: 'insecure-skip-verify',
    type: 'boolean',
    commands: ['contract', 'replay', 'probe'],
    help: 'HTTPS: send even when the certificate does not verify (a warning says so; anyone on the path could read the key): for a test target only',
    helpFor: { probe: 'HTTPS: probe even when the certificate does not verify (its expiry is still exported)' },
  },
  {
    flag: 'schedule',
    arg: 'CRON',
    type: 'string',
    commands: ['probe'],
    file: 'schedule',
    default: '*/30 * * * * *',
    help: "node-cron expression with seconds; 'none': only when Prometheus scrapes /probe",
  },
  {
    flag: 'exporter',
    type: 'boolean',
    commands: ['probe'],
    help: 'no schedule of its own: every target is probed when Prometheus scrapes /probe?target=NAME',
  },
  {
    flag: 'timeout-offset',
    type: 'duration',
    zero: true,
    commands: ['probe'],
    file: 'timeout_offset',
    default: '500ms',
    help: '/probe: taken off X-Prometheus-Scrape-Timeout-Seconds, so the answer is written before it gives up',
  },
  {
    flag: 'listen',
    type: 'listen',
    commands: ['probe', 'mock'],
    file: 'listen',
    default: '127.0.0.1:9464',
    defaultFor: { mock: '127.0.0.1:0' },
    help: 'address and port to serve on (port 0 picks a free one)',
    deprecated: {
      flags: ['host', 'port'],
      flagFor: ['mock'],
      convert: (old) => `${old.host ?? '127.0.0.1'}:${old.port ?? '0'}`,
    },
  },
  {
    flag: 'log-format',
    type: 'enum',
    values: ['text', 'json'],
    commands: ['probe'],
    file: 'log_format',
    default: 'text',
    help: 'one line per failed probe on stderr',
  },
  {
    flag: 'body-cap',
    arg: 'BYTES',
    type: 'integer',
    min: 1024,
    max: 256 * 1024 * 1024,
    commands: ['contract', 'replay', 'probe', 'validate'],
    file: 'body_cap',
    default: '1048576',
    // 32 MiB: a history answer of 100,000 records (about 15 MB) with room to spare.
    defaultFor: { contract: '33554432', replay: '33554432', validate: '33554432' },
    help: 'bytes of an answer read, as sent and once decoded, before it is cut (body_too_large); read as it streams in, never held whole beyond it',
    helpFor: {
      validate: 'the largest FILE.json read; a longer one is refused before it is parsed',
    },
  },
  {
    flag: 'history-limit',
    type: 'integer',
    min: 1,
    max: 100,
    commands: ['probe'],
    file: 'history_limit',
    default: '5',
    help: '`limit` of the history probe',
  },
  {
    flag: 'method',
    type: 'enum',
    values: ['POST', 'GET'],
    commands: ['probe'],
    file: 'method',
    default: 'POST',
    help: 'POST keeps the key out of URLs and access logs',
  },
  {
    flag: 'once',
    type: 'boolean',
    env: null,
    commands: ['probe'],
    help: 'one round, a summary, exit 0 if every probe succeeded, else 1',
  },
  {
    flag: 'json',
    type: 'boolean',
    env: null,
    commands: ['probe', 'validate', 'diff'],
    help: 'print the result as JSON',
  },
  {
    flag: 'prefix',
    arg: '/P',
    type: 'string',
    commands: ['mock'],
    help: 'serve the API under a path prefix, e.g. /h2h',
  },
  {
    flag: 'fixtures',
    arg: 'FILE',
    type: 'path',
    commands: ['mock'],
    help: 'YAML state (default: the bundled src/simulator/fixtures.yaml)',
  },
  {
    flag: 'admin-token',
    arg: 'TOKEN',
    type: 'secret',
    commands: ['mock'],
    help: 'the token /__sim/* requires as Authorization: Bearer; off loopback one is made and printed',
  },
  {
    flag: 'fault',
    arg: 'NAME',
    type: 'string',
    commands: ['mock'],
    help: 'break one clause or the transport (listed below); switch at run time with POST /__sim/fault?name=',
  },
  {
    flag: 'fault-delay',
    type: 'duration',
    zero: true,
    commands: ['mock'],
    help: 'the delay of the latency and slow-drip faults, the length of the outage fault (default 1500ms, 200ms, 3s)',
    deprecated: { flags: ['fault-ms'], convert: (old) => `${old['fault-ms']}ms` },
  },
  {
    flag: 'latency',
    type: 'duration',
    zero: true,
    commands: ['mock'],
    default: '0ms',
    help: 'a fixed delay added to every API answer',
    deprecated: { flags: ['latency-ms'], convert: (old) => `${old['latency-ms']}ms` },
  },
  {
    flag: 'legal',
    arg: 'R',
    type: 'string',
    commands: ['mock'],
    help: "a legal reading: a profile and/or knob=value items, e.g. 'legal' or 'slot=random,lag=2s'",
  },
  {
    flag: 'legal-profile',
    arg: 'FILE',
    type: 'path',
    commands: ['mock'],
    help: 'the same from a YAML file: {profile: NAME, <knob>: <value>, ...}',
  },
  {
    flag: 'tls-cert',
    arg: 'PEM',
    type: 'path',
    commands: ['mock'],
    help: 'serve HTTPS with this certificate (chain), with --tls-key',
  },
  {
    flag: 'tls-key',
    arg: 'PEM',
    type: 'path',
    commands: ['mock'],
    help: 'and its private key',
  },
  {
    flag: 'ci',
    type: 'enum',
    values: ['github', 'gitlab'],
    env: null,
    commands: ['init'],
    help: 'also write a CI job that runs the gate: .github/workflows/h2h-contract.yml or .gitlab-ci.yml',
  },
  {
    flag: 'package',
    arg: 'SPEC',
    type: 'string',
    commands: ['init'],
    help: 'where the CI job installs h2h-contract from when package.json does not name it: a tarball (a path in the repository, or a URL), a git URL (git+https://...), or a registry name (default vendor/h2h-contract-VERSION.tgz: h2h init packs the toolkit it runs from there, to commit with the job)',
  },
  {
    flag: 'base-url',
    type: 'url',
    commands: ['init'],
    help: "your API's base URL: probe.yaml's target and, commented out, the gate's (absent: a placeholder to edit)",
  },
] as const satisfies readonly Setting[];

/** The table as rows of one type, for code that reads any row. */
const ROWS: readonly Setting[] = SETTINGS;

type Row = (typeof SETTINGS)[number];
/** The name of a setting: one of the table's flags. */
export type SettingName = Row['flag'];
type RowOf<F extends SettingName> = Extract<Row, { flag: F }>;
/** The settings read as text, as a number, and so on, by name. */
type NamesOf<T extends SettingType> = Extract<Row, { type: T }>['flag'];
type TextType = 'string' | 'secret' | 'path' | 'url' | 'enum' | 'regex';
type NumberType = 'integer' | 'duration' | 'rate';
/** What a row's value is read as: one of an enum's values, text, a number (ms for a duration), a list, an address. */
type ValueOf<R> = R extends { type: 'enum'; values: readonly (infer V)[] }
  ? V
  : R extends { type: TextType }
    ? string
    : R extends { type: NumberType }
      ? number
      : R extends { type: 'boolean' }
        ? boolean
        : R extends { type: 'list' }
          ? string[]
          : R extends { type: 'listen' }
            ? { host: string; port: number }
            : never;
/** A setting with a default in the table always has a value once resolved; one without may have none. */
export type SettingValue<F extends SettingName> =
  RowOf<F> extends { default: string } ? ValueOf<RowOf<F>> : ValueOf<RowOf<F>> | undefined;

/**
 * Each command's examples and exit line: the end of its --help and of its part of docs/cli.md. Every example is a
 * command line the command accepts (a test parses each), with what it does after `#`.
 */
export const COMMAND_HELP: Readonly<Record<CommandName, { examples: readonly string[]; exit: string }>> = {
  contract: {
    examples: [
      'h2h contract  # the embedded simulator, writes allowed: no key needed',
      'h2h contract --base-url https://h2h.example --api-key-file ~/.h2h-key  # a real target, read-only',
      'h2h contract --base-url https://h2h.example --api-key-file ~/.h2h-key --allow-writes --product CODE --kind akrab --msisdn 081200000001 --max-invites 2  # and the invites that can succeed, at most 2 charged',
      "h2h contract --grep 'HIS-3'  # one clause's scenarios",
      'h2h contract --config h2h.config.yaml --baseline last/contract-summary.json --fail-on-change breaking  # what changed since the last run',
    ],
    exit: '0 the contract holds, 1 a clause is violated (or drift under --strict), 2 usage, configuration, an unreachable target or a key refused on GET and POST, 3 internal error, 4 inconclusive (--allow-inconclusive makes it 0).',
  },
  replay: {
    examples: [
      'h2h replay  # every saved failure of the last run, against a fresh embedded simulator',
      'h2h replay reports/failures/*.json --base-url https://h2h.example --api-key-file ~/.h2h-key  # against the target that failed',
    ],
    exit: '0 every case is fixed, 1 a case still fails (or could not be sent), 2 usage or configuration, 3 internal error.',
  },
  probe: {
    examples: [
      'h2h probe --once  # one round against the embedded simulator, a summary, then exit',
      'h2h probe --config probe.yaml  # every target of the file on its schedule; /metrics on 127.0.0.1:9464',
      'h2h probe --base-url https://h2h.example --api-key-file ~/.h2h-key --exporter --listen 0.0.0.0:9464  # Prometheus schedules /probe?target=default',
    ],
    exit: '0 ok, 1 a probe failed (--once), 2 usage or configuration (a port in use included), 3 internal error.',
  },
  mock: {
    examples: [
      'h2h mock  # a free loopback port: prints H2H_BASE_URL and H2H_API_KEY',
      'h2h mock --listen 127.0.0.1:4010 --legal-profile test/provider-reading.yaml  # answer as the provider read by a gate run does',
      'h2h mock --fault envelope-no-status  # break ENV-1, to see the gate fail',
    ],
    exit: '0 stopped by SIGINT or SIGTERM, 2 usage or configuration (a port in use included), 3 internal error.',
  },
  validate: {
    examples: [
      'h2h validate saldo-user answer.json  # a saved response body',
      'h2h validate history-transaksi exchange.json --strict --json  # {request, response}: the clauses that compare the two apply too',
    ],
    exit: '0 the response keeps the contract, 1 it breaks a clause, 2 usage error or unreadable file, 3 internal error.',
  },
  docs: {
    examples: [
      'h2h docs  # reports/docs/index.html and reports/docs/API.md from the bundled openapi.yaml',
      'h2h docs --reports-dir site  # into site/docs/',
      'h2h docs my/openapi.yaml --reports-dir review  # another copy of the document, into review/docs/',
    ],
    exit: '0 written, 2 the folder cannot be written or the document cannot be read, 3 internal error.',
  },
  lint: {
    examples: ['h2h lint  # the bundled openapi.yaml', 'h2h lint my/openapi.yaml  # a copy being edited'],
    exit: '0 clean, 1 a rule broke (each printed with where and why), 2 no such file, 3 internal error.',
  },
  diff: {
    examples: [
      'h2h diff old/openapi.yaml openapi.yaml  # what the change breaks for clients, and what is safe',
      'h2h diff old/openapi.yaml openapi.yaml --json  # the same as JSON',
    ],
    exit: '0 nothing breaks, 1 something breaks, 2 a file is missing or is not an OpenAPI document, 3 internal error.',
  },
  init: {
    examples: [
      'h2h init  # h2h.config.yaml and probe.yaml in this folder',
      'h2h init --ci github --base-url https://h2h.example  # and .github/workflows/h2h-contract.yml, for this API',
    ],
    exit: '0 every file is there (written now, or left as it was), 2 usage, or a file could not be written (each named with the reason; the others are written), 3 internal error.',
  },
};

/** The end of a command's --help and of its part of docs/cli.md: its examples, then its exit codes. */
export function examplesAndExit(command: CommandName): string {
  const h = COMMAND_HELP[command];
  return ['Examples:', ...h.examples.map((e) => `  ${e}`), '', `Exit: ${h.exit}`].join('\n');
}

/** A setting's old flag names, where the command had them. */
function oldFlags(s: Setting, command: CommandName): readonly string[] {
  const d = s.deprecated;
  return d?.flags && (!d.flagFor || d.flagFor.includes(command)) ? d.flags : [];
}

/** The settings of one command, in table order. */
export function settingsOf(command: CommandName): Setting[] {
  return ROWS.filter((s) => s.commands.includes(command));
}

/** The default of a setting for a command. */
export function defaultOf(s: Setting, command: CommandName): string | undefined {
  return s.defaultFor?.[command] ?? s.default;
}

/** The words a command uses for a setting. */
export function helpOf(s: Setting, command: CommandName): string {
  return s.helpFor?.[command] ?? s.help;
}

/** `--flag VALUE` as a usage or help line shows it. */
export function flagForm(s: Setting): string {
  const value: Partial<Record<SettingType, string>> = {
    duration: 'D',
    rate: 'R',
    url: 'URL',
    integer: 'N',
    path: 'FILE',
    listen: 'HOST:PORT',
    regex: 'RE',
    secret: 'KEY',
  };
  if (s.type === 'boolean') return `--${s.flag}`;
  if (s.type === 'enum') return `--${s.flag} ${s.values?.join('|')}`;
  return `--${s.flag} ${s.arg ?? value[s.type] ?? 'VALUE'}${s.type === 'list' ? '...' : ''}`;
}

/** The usage line of a command, from the table. */
export function usageLine(command: CommandName, positionals = ''): string {
  return [`h2h ${command}`, positionals, ...settingsOf(command).map((s) => `[${flagForm(s)}]`)]
    .filter(Boolean)
    .join(' ');
}

/** The flag lines of a command's --help, from the table: flag, meaning, default, variable, file key. */
export function flagHelp(command: CommandName): string {
  return settingsOf(command)
    .map((s) => {
      const notes = [
        defaultOf(s, command) !== undefined ? `default ${defaultOf(s, command)}` : '',
        envName(s) ?? '',
        s.file ? `file: ${s.file}` : '',
      ].filter(Boolean);
      return `  ${flagForm(s)}\n      ${helpOf(s, command)}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    })
    .join('\n');
}

/** Where a value came from, for its error: `--timeout`, `H2H_TIMEOUT`, `config file h2h.yaml: timeout`. */
export interface Given {
  raw: string | string[] | boolean;
  source: string;
}

/** A value read by its type, or a UsageError naming where it came from. */
function read(s: Setting, g: Given): unknown {
  // Where the bad value came from, as the user wrote it: `H2H_X=v`, `--x v`, `config file f: x: v`.
  const shown = Array.isArray(g.raw) ? JSON.stringify(g.raw) : String(g.raw);
  const at = g.source.startsWith('H2H_')
    ? `${g.source}=${shown}`
    : g.source.startsWith('--')
      ? `${g.source} ${shown}`
      : `${g.source}: ${shown}`;
  const bad = (why: string): never => {
    throw new UsageError(`${at}: ${why}`);
  };
  const text = typeof g.raw === 'string' ? g.raw.trim() : g.raw;
  switch (s.type) {
    case 'boolean': {
      if (typeof text === 'boolean') return text;
      if (Array.isArray(text)) return bad('not a boolean');
      const t = text.toLowerCase();
      if (['1', 'true', 'yes'].includes(t)) return true;
      if (['0', 'false', 'no'].includes(t)) return false;
      return bad('not a boolean (1, 0, true, false, yes or no)');
    }
    case 'list':
      return (Array.isArray(text) ? text : String(text).split(',')).map((v) => String(v).trim()).filter(Boolean);
    case 'integer': {
      const n = Number(text);
      if (typeof text === 'string' && /^-\d+(\.\d+)?$/.test(text))
        return bad(
          `must not be negative (a whole number from ${s.min ?? 0}${s.max !== undefined ? ` to ${s.max}` : ''})`,
        );
      if (typeof text === 'boolean' || Array.isArray(text) || !/^\d+$/.test(String(text)))
        return bad('not a whole number');
      if ((s.min !== undefined && n < s.min) || (s.max !== undefined && n > s.max))
        return bad(`must be from ${s.min} to ${s.max}`);
      return n;
    }
    case 'duration': {
      if (typeof text === 'string' && /^-\d/.test(text)) return bad('must not be negative');
      if (typeof text !== 'string' || !/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text))
        return bad('not a duration: a number and a unit, like 500ms, 1.5s or 1m30s');
      const ms = parseDuration(text) ?? Number.NaN;
      if (!(ms >= 0) || (ms === 0 && !s.zero)) return bad('must be more than 0');
      return ms;
    }
    case 'rate': {
      if (/^-\d/.test(String(text))) return bad('must not be negative');
      const m = /^(\d+(?:\.\d+)?)\/(s|m)$/.exec(String(text).toLowerCase());
      if (!m || Number(m[1]) <= 0) return bad('not a rate: requests per second or minute, like 10/s or 600/m');
      return Number(m[1]) / (m[2] === 'm' ? 60 : 1);
    }
    case 'url':
      return baseUrl(String(text), g.source);
    case 'listen':
      return listenAddress(String(text), g.source);
    case 'enum':
      if (!s.values?.includes(String(text))) return bad(`must be one of ${s.values?.join(', ')}`);
      return String(text);
    case 'regex':
      try {
        new RegExp(String(text));
      } catch (err) {
        return bad((err as Error).message);
      }
      return String(text);
    default:
      if (typeof text !== 'string' || text === '') return bad('must not be empty');
      return text;
  }
}

/**
 * The one base-URL check: http or https, no query string or fragment (the key would leak into it), no
 * user:password@ (the API takes its key as a parameter; the message shows the URL without them). A trailing
 * slash is dropped.
 */
export function baseUrl(raw: string, source: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${source}: '${raw}' is not a URL`);
  }
  const shown = `${u.protocol}//${u.username || u.password ? '***@' : ''}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`${source}: a base URL must be http or https, got '${u.protocol}'`);
  if (u.username || u.password)
    throw new UsageError(
      `${source}: a base URL must not carry a user name or password (user:password@): the API takes its key as a parameter; got '${shown}'`,
    );
  if (u.search || u.hash)
    throw new UsageError(
      `${source}: a base URL must not carry a query string or fragment (the key would leak into it); got '${shown}'`,
    );
  return raw.replace(/\/+$/, '');
}

/** `host:port` with a numeric port. */
export function listenAddress(raw: string, source: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  const port = Number(m?.[2]);
  if (!m) throw new UsageError(`${source}: must be host:port (e.g. 127.0.0.1:9464), got '${raw}'`);
  if (port > 65535) throw new UsageError(`${source}: port ${port} is out of range (0 to 65535)`);
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

/** The config file's schema for the settings a command reads from it, beside the command's own extra keys. */
function fileSchema(command: CommandName, extra: Record<string, object>): object {
  const props: Record<string, object> = {};
  for (const s of settingsOf(command)) {
    if (!s.file) continue;
    props[s.file] =
      s.type === 'boolean'
        ? { type: 'boolean' }
        : s.type === 'list'
          ? { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }
          : s.type === 'integer'
            ? { type: 'integer' }
            : // A number where text is read (timeout: 10) is read as its text, and refused by the same rule as a flag.
              { anyOf: [{ type: 'string' }, { type: 'number' }] };
  }
  return { type: 'object', additionalProperties: false, properties: { ...props, ...extra } };
}

/** What a command's settings resolved to: each value read by its type, where it came from, and the positionals. */
export interface Resolved {
  command: CommandName;
  positionals: string[];
  /** The config file's path and content (the extra keys are the command's to read). */
  file?: { path: string; data: Record<string, unknown> };
  /** Deprecation lines to print once. */
  deprecations: string[];
  /** Where each setting's value came from (`default` for a default). */
  sources: Record<string, string>;
  values: Record<string, unknown>;
  help: boolean;
}

/**
 * A resolved setting's value, typed by its row: undefined only for a setting without a default that nothing gave.
 * A setting the command does not take is at its default (h2h replay reads the contract's config: no --strict).
 * A default missing from the values is the program's error, not the user's.
 */
function resolvedValue<F extends SettingName>(r: Resolved, flag: F): SettingValue<F> {
  const v = r.values[flag];
  if (v !== undefined || r.help) return v as SettingValue<F>;
  const own = settingsOf(r.command).find((s) => s.flag === flag);
  if (own && defaultOf(own, r.command) !== undefined) throw new Error(`--${flag} was read before its default`);
  if (own) return undefined as SettingValue<F>;
  const other = ROWS.find((s) => s.flag === flag);
  if (!other) throw new Error(`--${flag} is not a setting`);
  const d = other.default;
  return (d === undefined ? undefined : read(other, { raw: d, source: `default of --${flag}` })) as SettingValue<F>;
}

/**
 * Typed reads of a resolved setting, by name and type: a name the table does not have, or a number read as text,
 * does not compile. A setting with a default always has a value; one without is undefined when nothing gave it.
 */
export const get = {
  str: <F extends NamesOf<TextType>>(r: Resolved, flag: F): SettingValue<F> => resolvedValue(r, flag),
  bool: <F extends NamesOf<'boolean'>>(r: Resolved, flag: F): SettingValue<F> => resolvedValue(r, flag),
  num: <F extends NamesOf<NumberType>>(r: Resolved, flag: F): SettingValue<F> => resolvedValue(r, flag),
  list: <F extends NamesOf<'list'>>(r: Resolved, flag: F): SettingValue<F> => resolvedValue(r, flag),
  listen: <F extends NamesOf<'listen'>>(r: Resolved, flag: F): SettingValue<F> => resolvedValue(r, flag),
};

export interface ResolveOptions {
  /** Positionals the command takes: [min, max]. */
  positionals?: readonly [number, number];
  /** The config file's keys that are the command's own (not settings), as JSON Schemas. */
  fileExtras?: Record<string, object>;
  /** A check of the config file's raw content before its schema (a key written in it gets its own message). */
  checkFile?: (raw: unknown, path: string) => void;
  env?: NodeJS.ProcessEnv;
}

/**
 * `--max-invites -1` as `--max-invites=-1`: a value that looks like a negative number is the flag's value, so that
 * it is refused as negative, not taken for a flag of its own ("needs a value").
 */
function negativesJoined(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const flag = /^--([^=]+)$/.exec(arg)?.[1];
    if (flag && options[flag]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * Parses a command's flags from the table and layers each setting: flag, then environment (`H2H_` + the flag's
 * name), then the config file (`--config`), then its default. Every value is read by its type; an error names
 * where the bad value came from (`H2H_ALLOW_WRITES=maybe: not a boolean`). An unknown flag is answered once, in
 * the project's words, with the closest flag. Old names still work, each with a deprecation line.
 */
export function resolveSettings(command: CommandName, argv: readonly string[], opts: ResolveOptions = {}): Resolved {
  const rows = settingsOf(command);
  const parsed = parseFlags(command, rows, argv);
  const flags = parsed.values as Flags;
  const [min, max] = opts.positionals ?? [0, 0];
  if (!flags.help && (parsed.positionals.length < min || parsed.positionals.length > max))
    throw new UsageError(
      `expected ${min === max ? min : `${min} to ${max}`} argument(s), got ${parsed.positionals.length} (h2h ${command} --help)`,
    );
  const out: Resolved = {
    command,
    positionals: parsed.positionals,
    deprecations: [],
    sources: {},
    values: {},
    help: flags.help === true,
  };
  if (out.help) return out;
  const given = new Map<string, Given>();
  givenByFlags(command, rows, flags, given, out.deprecations);
  givenByEnv(rows, opts.env ?? process.env, given, out.deprecations);
  const configPath = rows.some((s) => s.flag === 'config')
    ? (given.get('config')?.raw as string | undefined)
    : undefined;
  if (configPath) out.file = givenByFile(command, rows, configPath, opts, given);
  for (const s of rows) {
    const g = given.get(s.flag);
    const fallback = defaultOf(s, command);
    if (g) {
      out.values[s.flag] = read(s, g);
      out.sources[s.flag] = g.source;
    } else if (fallback !== undefined) {
      out.values[s.flag] = read(s, { raw: fallback, source: `default of --${s.flag}` });
      out.sources[s.flag] = 'default';
    }
  }
  return out;
}

type Flags = Record<string, string | boolean | string[] | undefined>;

/** The command line parsed by the table's flags (and their old names); a mistake answered in the project's words. */
function parseFlags(
  command: CommandName,
  rows: readonly Setting[],
  argv: readonly string[],
): ReturnType<typeof parseArgs> {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const s of rows) {
    const type = s.type === 'boolean' ? 'boolean' : 'string';
    options[s.flag] = { type, ...(s.type === 'list' ? { multiple: true } : {}) };
    for (const old of oldFlags(s, command)) options[old] = { type };
  }
  try {
    return parseArgs({ args: negativesJoined(argv, options), options, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const flag = /'(-{1,2}[^']+)'/.exec(e.message)?.[1];
    const name = flag?.replace(/^-+/, '').split('=')[0] ?? '';
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const near = didYouMean(
        name,
        rows.map((s) => s.flag),
      );
      throw new UsageError(`unknown flag ${flag}${near ? `; did you mean --${near}?` : ''} (h2h ${command} --help)`);
    }
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(
        options[name]?.type === 'boolean' ? `${flag} takes no value` : `${flag} needs a value (h2h ${command} --help)`,
      );
    throw new UsageError(`${e.message.split('\n')[0]} (h2h ${command} --help)`);
  }
}

/** What the flags gave, old names converted with a deprecation line. */
function givenByFlags(
  command: CommandName,
  rows: readonly Setting[],
  flags: Flags,
  given: Map<string, Given>,
  deprecations: string[],
): void {
  for (const s of rows) {
    const f = flags[s.flag];
    if (f !== undefined) given.set(s.flag, { raw: f, source: `--${s.flag}` });
    const olds = oldFlags(s, command).filter((o) => flags[o] !== undefined);
    if (!olds.length || f !== undefined) continue;
    const values = Object.fromEntries(olds.map((o) => [o, String(flags[o])]));
    const convert = s.deprecated?.convert;
    const first = flags[olds[0] as string];
    const raw = convert ? convert(values) : (first as string | boolean);
    given.set(s.flag, { raw, source: olds.map((o) => `--${o}`).join(' ') });
    deprecations.push(
      `${olds.map((o) => `--${o}`).join(' and ')} ${olds.length > 1 ? 'are' : 'is'} deprecated: use --${s.flag} (the old name goes in the next minor version)`,
    );
  }
}

/** What the environment gave where no flag did (`H2H_` + the flag's name, or its old name with a line). */
function givenByEnv(
  rows: readonly Setting[],
  env: NodeJS.ProcessEnv,
  given: Map<string, Given>,
  deprecations: string[],
): void {
  for (const s of rows) {
    if (given.has(s.flag)) continue;
    const name = envName(s);
    const value = name ? env[name] : undefined;
    if (name && value !== undefined && value !== '') {
      given.set(s.flag, { raw: value, source: name });
      continue;
    }
    const old = s.deprecated?.env;
    if (old && env[old] !== undefined && env[old] !== '') {
      given.set(s.flag, { raw: env[old] as string, source: old });
      deprecations.push(`${old} is deprecated: use ${name} (the old name goes in the next minor version)`);
    }
  }
}

/** The config file, checked, and what it gave where neither a flag nor the environment did. */
function givenByFile(
  command: CommandName,
  rows: readonly Setting[],
  configPath: string,
  opts: ResolveOptions,
  given: Map<string, Given>,
): NonNullable<Resolved['file']> {
  const raw = readYamlFile(configPath, 'config file') ?? {};
  opts.checkFile?.(raw, configPath);
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(`config file ${configPath} must be a mapping of settings`);
  const data = validateConfig<Record<string, unknown>>(
    fileSchema(command, opts.fileExtras ?? {}),
    raw,
    `config file ${configPath}`,
  );
  for (const s of rows) {
    if (given.has(s.flag) || !s.file || data[s.file] === undefined) continue;
    const v = data[s.file];
    given.set(s.flag, {
      raw: Array.isArray(v) ? v.map(String) : typeof v === 'boolean' ? v : String(v),
      source: `config file ${configPath}: ${s.file}`,
    });
  }
  return { path: configPath, data };
}

/** A value read as the setting named by `flag` reads its own (a per-target timeout in a probe file, say). */
export function readAs<F extends SettingName>(flag: F, raw: string, source: string): ValueOf<RowOf<F>> {
  const s = ROWS.find((x) => x.flag === flag);
  if (!s) throw new Error(`no setting --${flag}`);
  return read(s, { raw, source }) as ValueOf<RowOf<F>>;
}

/**
 * A setting's default for a command, read by its type: for code that runs without a command line (the in-process
 * runner, a rule's fallback). Only settings with a default in the table are named here.
 */
export function defaultValue<F extends Extract<Row, { default: string }>['flag']>(
  flag: F,
  command: CommandName = 'contract',
): ValueOf<RowOf<F>> {
  const s = ROWS.find((x) => x.flag === flag && x.commands.includes(command));
  const d = s ? defaultOf(s, command) : undefined;
  if (!s || d === undefined) throw new Error(`--${flag} has no default for h2h ${command}`);
  return read(s, { raw: d, source: `default of --${flag}` }) as ValueOf<RowOf<F>>;
}

/** Whether a setting was given (by flag, environment or file), not left to its default. */
export function isGiven(r: Resolved, flag: SettingName): boolean {
  return r.sources[flag] !== undefined && r.sources[flag] !== 'default';
}

/** docs/cli.md: every command's settings, from the table. */
export function cliReference(about: Record<CommandName, string>): string {
  const lines = [
    '# CLI reference',
    '',
    'Generated from the settings table (`src/shared/settings.ts`) by `npm run docs:cli`; a test keeps it equal.',
    'Every setting is layered the same way: the flag wins over its environment variable (`H2H_` + the flag',
    'name), which wins over the config file (`--config`, where the command reads one), which wins over the',
    'default. Durations need a unit (`500ms`, `1.5s`, `1m30s`); rates are `N/s` or `N/m`; booleans in the',
    'environment are 1, 0, true, false, yes or no. The key follows the same rule across its two settings, in',
    'every command: `--api-key` or `--api-key-file`, whichever was given higher (flag, then `H2H_API_KEY` or',
    '`H2H_API_KEY_FILE`, then the config file), the key itself where both are given at one level; last, the',
    'variable the config file names (`api_key_env`). Back to the [README](../README.md).',
  ];
  for (const command of COMMAND_NAMES) {
    lines.push('', `## h2h ${command}`, '', about[command], '');
    const rows = settingsOf(command);
    const { examples, exit } = COMMAND_HELP[command];
    const end = ['', 'Examples:', '', '```sh', ...examples, '```', '', `Exit: ${exit}`];
    if (rows.length === 0) {
      lines.push('No flags but `--help`.', ...end);
      continue;
    }
    lines.push('| flag | environment | config file | default | meaning |', '|---|---|---|---|---|');
    for (const s of rows) {
      const old = [...oldFlags(s, command).map((o) => `--${o}`), s.deprecated?.env].filter(Boolean);
      lines.push(
        `| \`${flagForm(s).replace(/\|/g, '\\|')}\` | ${envName(s) ? `\`${envName(s)}\`` : ''} | ${s.file ? `\`${s.file}\`` : ''} | ${
          defaultOf(s, command) !== undefined ? `\`${defaultOf(s, command)}\`` : ''
        } | ${helpOf(s, command).replace(/\|/g, '\\|')}${old.length ? ` (old name, deprecated: ${old.join(', ')})` : ''} |`,
      );
    }
    lines.push(...end);
  }
  return `${lines.join('\n')}\n`;
}

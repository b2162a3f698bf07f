import { stringify } from 'yaml';
import { PROBE_FILE_EXTRAS } from '../probe/config.js';
import { defaultOf, envName, helpOf, type Setting, settingsOf } from '../shared/settings.js';
import { INIT_FILES, KEY_ENV } from './init-files.js';

// The settings files h2h init writes: h2h.config.yaml (the gate's) and probe.yaml (the probe's), every key
// commented out at its default, never a key.

/** The probe target's base URL when none is given: a reserved name (RFC 2606) that never resolves. */
const PLACEHOLDER_URL = 'https://h2h.example';
const PROBE_TARGET = 'production';

/** Example values of the gate's file keys that have no default (shown commented out, marked as examples). */
const EXAMPLES: Record<string, unknown> = {
  base_url: PLACEHOLDER_URL,
  api_key_file: '/run/secrets/h2h-api-key',
  api_key_env: 'PROVIDER_API_KEY',
  product: 'CODE',
  kind: 'akrab',
  msisdns: ['081200000001'],
  trx_id: 'TRX-ID',
  known_statuses: ['SUCCESS', 'INVALID_API_KEY', 'INVALID_DATE', 'TRX_NOT_FOUND', 'DUPLICATE_TRX_ID'],
  known_http_statuses: [400, 401, 404],
  baseline: 'baseline/contract-summary.json',
  rate_limit: '10/s',
  seed: 12345,
  concurrency: 4,
};

/** A value of a setting's type, for a key with neither a default nor an example above. */
function exampleOf(s: Setting): unknown {
  const byType: Partial<Record<Setting['type'], unknown>> = {
    boolean: false,
    integer: s.min ?? 1,
    duration: '1s',
    rate: '10/s',
    url: PLACEHOLDER_URL,
    listen: '127.0.0.1:0',
    list: [],
    enum: s.values?.[0],
  };
  return byType[s.type] ?? s.arg ?? 'VALUE';
}

/** What a probe target may add, each with an example value and what it does (keys the schema has, in its order). */
const TARGET_OPTIONS: Record<string, { example: unknown; what: string }> = {
  trx_id: {
    example: 'TRX-ID',
    what: 'the transaction cek-trx-id looks up (default: the newest an earlier history read showed)',
  },
  schedule: { example: '*/30 * * * * *', what: "its own schedule (default: the schedule above; 'none': /probe only)" },
  timeout: { example: '10s', what: 'its own deadline per request (default: the timeout above)' },
  proxy_url: {
    example: 'http://proxy.internal:3128',
    what: "its forward proxy, whatever NO_PROXY says (default: the environment's proxy settings)",
  },
  tls: {
    example: { ca_file: 'ca.pem', server_name: 'h2h.internal', insecure_skip_verify: false },
    what: 'HTTPS: the CAs to trust (a file relative to this one), the name on the certificate, whether to skip the check',
  },
};

/** The optional keys of a probe target, commented out: every one the probe's schema takes. */
function targetOptions(): string[] {
  const written = new Set(['name', 'base_url', 'api_key_env', 'api_key_file']);
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(PROBE_FILE_EXTRAS.targets.items.properties)) {
    if (written.has(key)) continue;
    const option = TARGET_OPTIONS[key];
    const example = option?.example ?? ((schema as { type?: string }).type === 'boolean' ? false : 'VALUE');
    lines.push(...comment(sentence(option?.what ?? key), '    '), `    # ${key}: ${yamlValue(example)}`);
  }
  return lines;
}

/** A scalar or a flow collection, as YAML writes it (`10s`, `"*\/30 * * * * *"`, `[400, 401]`). */
function yamlValue(v: unknown): string {
  return stringify(v, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trim();
}

/** A setting's default as its config-file value: a boolean, a number, a list or text. */
function fileValue(s: Setting, text: string): unknown {
  if (s.type === 'boolean') return text === 'true';
  if (s.type === 'integer') return Number(text);
  if (s.type === 'list') return text.split(',').filter(Boolean);
  return text;
}

/** Comment lines of at most `width` columns, each beginning with `indent# `. */
function comment(text: string, indent = '', width = 118): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + 2 + line.length + 1 + word.length > width) {
      lines.push(`${indent}# ${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${indent}# ${line}`);
  return lines;
}

/** The first letter in upper case: a sentence, and never read as a commented-out `key:`. */
const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** One setting as the files show it: its help, flag and variable, then the key commented out at its default. */
function settingLines(s: Setting, command: 'contract' | 'probe', example?: unknown): string[] {
  const key = s.file ?? '';
  const d = defaultOf(s, command);
  const where = [`--${s.flag}`, envName(s)].filter(Boolean).join(', ');
  const value = yamlValue(d !== undefined ? fileValue(s, d) : (example ?? EXAMPLES[key] ?? exampleOf(s)));
  return [
    ...comment(`${sentence(helpOf(s, command))} [${where}]`),
    `# ${key}: ${value}${d === undefined ? '  # an example: no default' : ''}`,
  ];
}

/** h2h.config.yaml: every key `h2h contract --config` reads, commented out at its default, and never the key. */
export function gateConfig(version: string, baseUrl?: string): string {
  const lines = [
    `# ${INIT_FILES.gate}: the contract gate's settings, read by \`h2h contract --config ${INIT_FILES.gate}\`.`,
    ...comment(
      `Written by h2h init (h2h-contract ${version}). Every key the gate reads from this file is here, commented out at its default (or with an example where it has none): uncomment what you change. A flag wins over its environment variable, which wins over this file, which wins over the default (the brackets name both). With no base_url (and no H2H_BASE_URL) the gate runs against its embedded simulator, writes allowed.`,
    ),
    '#',
    ...comment(
      `The API key is never in this file (h2h refuses a config file that holds one): set ${KEY_ENV} in the environment (a CI secret), or name a file (api_key_file) or another variable (api_key_env) below.`,
    ),
  ];
  for (const s of settingsOf('contract')) {
    if (!s.file) continue;
    lines.push('', ...settingLines(s, 'contract', s.file === 'base_url' ? (baseUrl ?? PLACEHOLDER_URL) : undefined));
    if (s.file === 'api_key_file')
      lines.push(
        '',
        ...comment(
          `The name of an environment variable that holds the key, when it is not ${KEY_ENV} [config file only]`,
        ),
        `# api_key_env: ${yamlValue(EXAMPLES.api_key_env)}  # an example: no default`,
      );
  }
  lines.push(
    '',
    ...comment(
      'Clauses the team accepts as broken for now: their findings are reported as warnings with the reason, not failed [config file only]',
    ),
    '# deviations:',
    '#   - clause: HIS-3',
    "#     reason: the provider's history order differs; reported to the provider, revisit next release",
  );
  return `${lines.join('\n')}\n`;
}

/** probe.yaml: one target whose key comes from an environment variable, a schedule, the rest at its defaults. */
export function probeConfig(version: string, baseUrl?: string): string {
  // base_url, api_key_file and trx_id at the top level describe one more target: targets: says it all.
  const targetKeys = new Set(['base_url', 'api_key_file', 'trx_id']);
  const lines = [
    `# ${INIT_FILES.probe}: the probe's settings, read by \`h2h probe --config ${INIT_FILES.probe}\` (with --once: one round, then exit).`,
    ...comment(
      `Written by h2h init (h2h-contract ${version}). The probe calls the read-only endpoints of every target on its schedule, judges each answer by the contract's clauses and serves Prometheus metrics (/metrics, /probe?target=NAME). Keys commented out are at their default; a flag or its environment variable wins over this file.`,
    ),
    '#',
    ...comment(
      'Keys are never in this file: each target names the environment variable (api_key_env) or the file (api_key_file, relative to this file) that holds its key.',
    ),
  ];
  for (const s of settingsOf('probe')) {
    if (!s.file || targetKeys.has(s.file)) continue;
    const lineset = settingLines(s, 'probe');
    // The schedule is written, not commented out: it is what a probe is for.
    if (s.file === 'schedule') lineset[lineset.length - 1] = (lineset.at(-1) ?? '').replace(/^# /, '');
    lines.push('', ...lineset);
  }
  const url = baseUrl ?? PLACEHOLDER_URL;
  lines.push(
    '',
    'targets:',
    ...comment(
      'Each target: a name (its label in every metric: letters, digits, _ and -), its base_url, and where its key is: api_key_env or api_key_file, one of them. What a target may add is below it, commented out.',
      '  ',
    ),
    `  - name: ${PROBE_TARGET}`,
    `    base_url: ${yamlValue(url)}${baseUrl ? '' : '  # a placeholder: your API (h2h init --base-url URL writes it)'}`,
    `    api_key_env: ${KEY_ENV}  # the variable that holds its key`,
    ...targetOptions(),
  );
  return `${lines.join('\n')}\n`;
}

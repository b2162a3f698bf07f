import { type Static, Type } from '@sinclair/typebox';
import cron from 'node-cron';
import type { Target } from '../client/target.js';
import { checkConfig, oneOf, readSecretFile, readYamlFile, UsageError } from '../shared/config-file.js';
import { parseDuration } from '../shared/config-values.js';

/** One API the probe watches. The key is resolved at load time and never written in the config file. */
export interface ProbeTarget extends Target {
  /** Label value of every metric of this target: letters, digits, `_` and `-`, never a URL. */
  name: string;
  /** Transaction looked up by cek-trx-id; else the newest from history; else that probe is skipped. */
  trxId?: string;
}

export interface ProbeConfig {
  targets: ProbeTarget[];
  /** node-cron expression with seconds. @defaultValue '*\/30 * * * * *' (every 30 s) */
  schedule: string;
  /** One overall deadline per request; must be shorter than the schedule's interval. @defaultValue 10000 */
  timeoutMs: number;
  /** Body bytes read before the body is cut. @defaultValue 1048576 (1 MiB) */
  bodyCap: number;
  /** @defaultValue { host: '127.0.0.1', port: 9464 } */
  listen: { host: string; port: number };
  /** `limit` of the history probe. @defaultValue 5 */
  historyLimit: number;
  /** Probes in flight at once, over all targets. @defaultValue 4 */
  concurrency: number;
  /** POST keeps the key out of URLs and access logs. @defaultValue 'POST' */
  method: 'GET' | 'POST';
  /** @defaultValue 'text' */
  logFormat: 'text' | 'json';
}

/** Every default, written down once. */
export const PROBE_DEFAULTS: Omit<ProbeConfig, 'targets'> = {
  schedule: '*/30 * * * * *',
  timeoutMs: 10_000,
  bodyCap: 1024 * 1024,
  listen: { host: '127.0.0.1', port: 9464 },
  historyLimit: 5,
  concurrency: 4,
  method: 'POST',
  logFormat: 'text',
};

const NAME = '^[A-Za-z0-9_-]{1,64}$';
const FILE_SCHEMA = Type.Object(
  {
    schedule: Type.Optional(Type.String()),
    timeout: Type.Optional(Type.String()),
    body_cap: Type.Optional(Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 })),
    listen: Type.Optional(Type.String()),
    history_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    method: Type.Optional(oneOf(['GET', 'POST'])),
    log_format: Type.Optional(oneOf(['text', 'json'])),
    targets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: NAME }),
            base_url: Type.String({ pattern: '^https?://' }),
            api_key_env: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
            api_key_file: Type.Optional(Type.String({ minLength: 1 })),
            trx_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
  },
  { additionalProperties: false },
);
type ProbeFile = Static<typeof FILE_SCHEMA>;

export interface ProbeFlags {
  config?: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeyFile?: string;
  name?: string;
  trxId?: string;
  schedule?: string;
  timeout?: string;
  listen?: string;
  logFormat?: string;
}

/** `host:port` with a numeric port. */
export function parseListen(raw: string, what: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  const port = Number(m?.[2]);
  if (!m || port > 65535) throw new UsageError(`${what} must be host:port (e.g. 127.0.0.1:9464), got '${raw}'`);
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

/** The shortest gap between two runs of a cron expression, in ms (over its next 60 runs). */
export function shortestInterval(schedule: string): number {
  const task = cron.createTask(schedule, () => undefined);
  try {
    const runs = task.getNextRuns(60).map((d) => d.getTime());
    let min = Number.POSITIVE_INFINITY;
    for (let i = 1; i < runs.length; i++) min = Math.min(min, (runs[i] ?? 0) - (runs[i - 1] ?? 0));
    return min;
  } finally {
    void task.destroy();
  }
}

function checkSchedule(schedule: string): void {
  const v = cron.validateDetailed(schedule);
  if (!v.valid) {
    throw new UsageError(
      `schedule '${schedule}' is not a cron expression: ${v.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    );
  }
}

/** Resolves the probe config: flags over the file over the defaults. Targets' keys come from env or files. */
export function resolveProbeConfig(flags: ProbeFlags, env: NodeJS.ProcessEnv = process.env): ProbeConfig {
  const file: ProbeFile = flags.config
    ? (checkConfig(FILE_SCHEMA, readYamlFile(flags.config, 'config file') ?? {}, `config file ${flags.config}`) ?? {})
    : {};
  const targets: ProbeTarget[] = [];
  const seen = new Set<string>();
  for (const [i, t] of (file.targets ?? []).entries()) {
    if (seen.has(t.name)) throw new UsageError(`config file: targets[${i}]: the name '${t.name}' is used twice`);
    seen.add(t.name);
    if (!t.api_key_env === !t.api_key_file)
      throw new UsageError(`config file: targets[${i}] (${t.name}): give exactly one of api_key_env and api_key_file`);
    let apiKey: string | undefined;
    if (t.api_key_env) {
      apiKey = env[t.api_key_env];
      if (!apiKey)
        throw new UsageError(
          `config file: targets[${i}] (${t.name}): environment variable ${t.api_key_env} is not set`,
        );
    } else if (t.api_key_file) apiKey = readSecretFile(t.api_key_file, `targets[${i}] api_key_file`);
    targets.push({
      name: t.name,
      baseUrl: t.base_url.replace(/\/+$/, ''),
      apiKey: apiKey ?? '',
      ...(t.trx_id ? { trxId: t.trx_id } : {}),
    });
  }
  if (flags.baseUrl) {
    if (!/^https?:\/\/[^?#]+$/.test(flags.baseUrl))
      throw new UsageError(`--base-url must be an http(s) URL without query or fragment, got '${flags.baseUrl}'`);
    const name = flags.name ?? 'default';
    if (!new RegExp(NAME).test(name)) throw new UsageError(`--name must match ${NAME}, got '${name}'`);
    const apiKey =
      flags.apiKey ?? (flags.apiKeyFile ? readSecretFile(flags.apiKeyFile, '--api-key-file') : env.H2H_API_KEY);
    if (!apiKey) throw new UsageError('--base-url needs its key: --api-key, --api-key-file or H2H_API_KEY');
    if (seen.has(name)) throw new UsageError(`--name '${name}' is already a target of the config file`);
    targets.push({
      name,
      baseUrl: flags.baseUrl.replace(/\/+$/, ''),
      apiKey,
      ...(flags.trxId ? { trxId: flags.trxId } : {}),
    });
  } else if (flags.apiKey || flags.apiKeyFile || flags.name) {
    throw new UsageError('--api-key, --api-key-file and --name go with --base-url');
  }

  const schedule = flags.schedule ?? file.schedule ?? PROBE_DEFAULTS.schedule;
  checkSchedule(schedule);
  const timeoutMs = flags.timeout
    ? parseDuration(flags.timeout, '--timeout')
    : file.timeout
      ? parseDuration(file.timeout, 'timeout')
      : PROBE_DEFAULTS.timeoutMs;
  const interval = shortestInterval(schedule);
  if (timeoutMs >= interval) {
    throw new UsageError(
      `timeout ${timeoutMs} ms must be shorter than the schedule's interval (${interval} ms for '${schedule}')`,
    );
  }
  const logFormat = flags.logFormat ?? file.log_format ?? PROBE_DEFAULTS.logFormat;
  if (logFormat !== 'text' && logFormat !== 'json')
    throw new UsageError(`--log-format must be text or json, got '${logFormat}'`);
  const listenRaw = flags.listen ?? file.listen;
  return {
    targets,
    schedule,
    timeoutMs,
    bodyCap: file.body_cap ?? PROBE_DEFAULTS.bodyCap,
    listen: listenRaw ? parseListen(listenRaw, flags.listen ? '--listen' : 'listen') : PROBE_DEFAULTS.listen,
    historyLimit: file.history_limit ?? PROBE_DEFAULTS.historyLimit,
    concurrency: file.concurrency ?? PROBE_DEFAULTS.concurrency,
    method: file.method ?? PROBE_DEFAULTS.method,
    logFormat,
  };
}

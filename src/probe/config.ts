import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import cron from 'node-cron';
import type { TlsOptions } from '../client/client.js';
import type { Target } from '../client/target.js';
import { refuseKeyInFile } from '../redact.js';
import { oneOf, readSecretFile, readYamlFile, UsageError, validateConfig } from '../shared/config-file.js';
import { parseDuration, refuseUserinfo } from '../shared/config-values.js';

/** One API the probe watches. The key is resolved at load time and never written in the config file. */
export interface ProbeTarget extends Target {
  /** Label value of every metric of this target: letters, digits, `_` and `-`, never a URL. */
  name: string;
  /** Transaction looked up by cek-trx-id; else the newest from history (from the cycle before). */
  trxId?: string;
  /** Its own node-cron schedule, with seconds, or `none`: probed only when scraped at /probe. @defaultValue the config's `schedule` */
  schedule: string;
  /** One overall deadline per request; the target's probes run at once, so this must fit its interval. */
  timeoutMs: number;
  /** Its offset within each interval, so that targets spread over it: the same for the same name. */
  jitterMs: number;
  /** How to trust it, when it is HTTPS. */
  tls?: TlsOptions;
}

export interface ProbeConfig {
  targets: ProbeTarget[];
  /** node-cron expression with seconds, for targets that give none. @defaultValue '*\/30 * * * * *' (every 30 s) */
  schedule: string;
  /** One overall deadline per request, for targets that give none. @defaultValue 10000 */
  timeoutMs: number;
  /** Body bytes read before the body is cut. @defaultValue 1048576 (1 MiB) */
  bodyCap: number;
  /** @defaultValue { host: '127.0.0.1', port: 9464 } */
  listen: { host: string; port: number };
  /** `limit` of the history probe. @defaultValue 5 */
  historyLimit: number;
  /** POST keeps the key out of URLs and access logs. @defaultValue 'POST' */
  method: 'GET' | 'POST';
  /** @defaultValue 'text' */
  logFormat: 'text' | 'json';
  /** /probe: taken off Prometheus' scrape timeout, so the answer is written before it gives up. @defaultValue 500 */
  timeoutOffsetMs: number;
}

/** The schedule of a target probed only when Prometheus scrapes /probe (the exporter mode). */
export const NO_SCHEDULE = 'none';

/** Every default, written down once. */
export const PROBE_DEFAULTS: Omit<ProbeConfig, 'targets'> = {
  schedule: '*/30 * * * * *',
  timeoutMs: 10_000,
  bodyCap: 1024 * 1024,
  listen: { host: '127.0.0.1', port: 9464 },
  historyLimit: 5,
  method: 'POST',
  logFormat: 'text',
  timeoutOffsetMs: 500,
};

const NAME = '^[A-Za-z0-9_-]{1,64}$' as const;
const FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    schedule: { type: 'string' },
    timeout: { type: 'string' },
    body_cap: { type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 },
    listen: { type: 'string' },
    history_limit: { type: 'integer', minimum: 1, maximum: 100 },
    method: oneOf(['GET', 'POST']),
    log_format: oneOf(['text', 'json']),
    timeout_offset: { type: 'string' },
    targets: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'base_url'],
        properties: {
          name: { type: 'string', pattern: NAME },
          base_url: { type: 'string', pattern: '^https?://' },
          api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          api_key_file: { type: 'string', minLength: 1 },
          trx_id: { type: 'string', minLength: 1, maxLength: 64 },
          schedule: { type: 'string' },
          timeout: { type: 'string' },
          tls: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ca_file: { type: 'string', minLength: 1 },
              server_name: { type: 'string', minLength: 1 },
              insecure_skip_verify: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
} as const satisfies JSONSchema;
type ProbeFile = FromSchema<typeof FILE_SCHEMA>;

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
  caFile?: string;
  serverName?: string;
  insecureSkipVerify?: boolean;
  /** The exporter mode: no schedule of its own (every target `none`). */
  exporter?: boolean;
  timeoutOffset?: string;
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

function validateSchedule(schedule: string, where = 'schedule'): void {
  if (schedule === NO_SCHEDULE) return;
  const v = cron.validateDetailed(schedule);
  if (!v.valid) {
    throw new UsageError(
      `${where}: schedule '${schedule}' is not a cron expression: ${v.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    );
  }
}

/** Milliseconds a name hashes to, in [0, room): the same offset for the same target, run after run. */
function jitterFor(name: string, room: number): number {
  if (room <= 1) return 0;
  return createHash('sha256').update(name).digest().readUInt32BE(0) % Math.floor(room);
}

/**
 * A target's schedule and deadline, checked: its probes (the three endpoints at once) must end within its
 * interval, after its jitter, or the config is refused with the reason.
 */
function timing(
  name: string,
  schedule: string,
  timeoutMs: number,
  where: string,
): Pick<ProbeTarget, 'schedule' | 'timeoutMs' | 'jitterMs'> {
  validateSchedule(schedule, where);
  if (schedule === NO_SCHEDULE) return { schedule, timeoutMs, jitterMs: 0 };
  const interval = shortestInterval(schedule);
  if (timeoutMs >= interval)
    throw new UsageError(
      `${where}: timeout ${timeoutMs} ms must be shorter than the schedule's interval (${interval} ms for '${schedule}'): its three probes run at once, each with that deadline, and must end before the next run`,
    );
  return { schedule, timeoutMs, jitterMs: jitterFor(name, (interval - timeoutMs) / 2) };
}

/** Resolves the probe config: flags over the file over the defaults. Targets' keys come from env or files. */
export function resolveProbeConfig(flags: ProbeFlags, env: NodeJS.ProcessEnv = process.env): ProbeConfig {
  const raw = flags.config ? (readYamlFile(flags.config, 'config file') ?? {}) : {};
  refuseKeyInFile(raw, flags.config);
  const file: ProbeFile = flags.config
    ? validateConfig<ProbeFile>(FILE_SCHEMA, raw, `config file ${flags.config}`)
    : {};
  // Paths in the config file are read from its own folder.
  const here = (path: string): string => (flags.config ? resolve(dirname(flags.config), path) : path);
  if (flags.exporter && flags.schedule)
    throw new UsageError('--exporter and --schedule exclude each other: in the exporter mode Prometheus schedules');
  const schedule = flags.exporter ? NO_SCHEDULE : (flags.schedule ?? file.schedule ?? PROBE_DEFAULTS.schedule);
  const timeoutMs = flags.timeout
    ? parseDuration(flags.timeout, '--timeout')
    : file.timeout
      ? parseDuration(file.timeout, 'timeout')
      : PROBE_DEFAULTS.timeoutMs;
  const targets: ProbeTarget[] = [];
  const seen = new Set<string>();
  for (const [i, t] of (file.targets ?? []).entries()) {
    const where = `config file: targets[${i}] (${t.name})`;
    if (seen.has(t.name)) throw new UsageError(`config file: targets[${i}]: the name '${t.name}' is used twice`);
    seen.add(t.name);
    refuseUserinfo(t.base_url, `${where}: base_url`);
    if (!t.api_key_env === !t.api_key_file)
      throw new UsageError(`${where}: give exactly one of api_key_env and api_key_file`);
    let apiKey: string | undefined;
    if (t.api_key_env) {
      apiKey = env[t.api_key_env];
      if (!apiKey) throw new UsageError(`${where}: environment variable ${t.api_key_env} is not set`);
    } else if (t.api_key_file) apiKey = readSecretFile(here(t.api_key_file), `targets[${i}] api_key_file`);
    const tls: TlsOptions | undefined = t.tls
      ? {
          ...(t.tls.ca_file ? { caFile: readable(here(t.tls.ca_file), `${where}: tls.ca_file`) } : {}),
          ...(t.tls.server_name ? { serverName: t.tls.server_name } : {}),
          ...(t.tls.insecure_skip_verify ? { insecureSkipVerify: true } : {}),
        }
      : undefined;
    targets.push({
      name: t.name,
      baseUrl: t.base_url.replace(/\/+$/, ''),
      apiKey: apiKey ?? '',
      ...(t.trx_id ? { trxId: t.trx_id } : {}),
      ...timing(
        t.name,
        flags.exporter ? NO_SCHEDULE : (t.schedule ?? schedule),
        t.timeout ? parseDuration(t.timeout, `${where}: timeout`) : timeoutMs,
        where,
      ),
      ...(tls ? { tls } : {}),
    });
  }
  if (flags.baseUrl) {
    if (!/^https?:\/\/[^?#]+$/.test(flags.baseUrl))
      throw new UsageError('--base-url must be an http(s) URL without query or fragment');
    refuseUserinfo(flags.baseUrl, '--base-url');
    const name = flags.name ?? 'default';
    if (!new RegExp(NAME).test(name)) throw new UsageError(`--name must match ${NAME}, got '${name}'`);
    const apiKey =
      flags.apiKey ?? (flags.apiKeyFile ? readSecretFile(flags.apiKeyFile, '--api-key-file') : env.H2H_API_KEY);
    if (!apiKey) throw new UsageError('--base-url needs its key: --api-key, --api-key-file or H2H_API_KEY');
    if (seen.has(name)) throw new UsageError(`--name '${name}' is already a target of the config file`);
    const tls: TlsOptions = {
      ...(flags.caFile ? { caFile: readable(flags.caFile, '--ca-file') } : {}),
      ...(flags.serverName ? { serverName: flags.serverName } : {}),
      ...(flags.insecureSkipVerify ? { insecureSkipVerify: true } : {}),
    };
    targets.push({
      name,
      baseUrl: flags.baseUrl.replace(/\/+$/, ''),
      apiKey,
      ...(flags.trxId ? { trxId: flags.trxId } : {}),
      ...timing(name, schedule, timeoutMs, '--schedule and --timeout'),
      ...(Object.keys(tls).length ? { tls } : {}),
    });
  } else if (
    flags.apiKey ||
    flags.apiKeyFile ||
    flags.name ||
    flags.caFile ||
    flags.serverName ||
    flags.insecureSkipVerify
  ) {
    throw new UsageError(
      '--api-key, --api-key-file, --name, --ca-file, --server-name and --insecure-skip-verify go with --base-url',
    );
  }
  // The defaults are checked even with no target yet (the embedded simulator takes them).
  timing('', schedule, timeoutMs, 'schedule and timeout');
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
    method: file.method ?? PROBE_DEFAULTS.method,
    logFormat,
    timeoutOffsetMs: flags.timeoutOffset
      ? parseDuration(flags.timeoutOffset, '--timeout-offset', { zero: true })
      : file.timeout_offset
        ? parseDuration(file.timeout_offset, 'timeout_offset', { zero: true })
        : PROBE_DEFAULTS.timeoutOffsetMs,
  };
}

/** A file that must be readable (a CA bundle): its path, or a UsageError naming it. */
function readable(path: string, what: string): string {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new UsageError(`${what} ${path}: no such file or not readable`);
  }
  return path;
}

/** A target made from the defaults (the embedded simulator's). */
export function defaultTarget(cfg: ProbeConfig, t: Target & { name: string }): ProbeTarget {
  return { ...t, ...timing(t.name, cfg.schedule, cfg.timeoutMs, 'schedule and timeout') };
}

import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import cron from 'node-cron';
import type { TlsOptions } from '../client/client.js';
import { proxyProblem } from '../client/proxy.js';
import type { Target } from '../client/target.js';
import { resolveApiKey } from '../shared/api-key.js';
import { readableFile, readSecretFile, UsageError } from '../shared/config-file.js';
import { baseUrl, get, isGiven, type Resolved, readAs, resolveSettings } from '../shared/settings.js';

/** One API the probe watches. The key is resolved at load time and never written in the config file. */
export interface ProbeTarget extends Target {
  /** Label value of every metric of this target: letters, digits, `_` and `-`, never a URL. */
  name: string;
  /** Transaction looked up by cek-trx-id; else the newest from history (from an earlier round). */
  trxId?: string;
  /** Its own node-cron schedule, with seconds, or `none`: probed only when scraped at /probe. @defaultValue the config's `schedule` */
  schedule: string;
  /** One overall deadline per request; the target's probes run at once, so this must fit its interval. */
  timeoutMs: number;
  /** Its offset within each interval, so that targets spread over it: the same for the same name. */
  jitterMs: number;
  /** How to trust it, when it is HTTPS. */
  tls?: TlsOptions;
  /** Its forward proxy (`proxy_url`), whatever NO_PROXY says; else the environment's (src/client/proxy.ts). */
  proxyUrl?: string;
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

const NAME = '^[A-Za-z0-9_-]{1,64}$' as const;

/** The probe config file's own keys, beside the settings of the table (schedule, timeout, listen, ...). */
export const PROBE_FILE_EXTRAS = {
  targets: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'base_url'],
      properties: {
        name: { type: 'string', pattern: NAME },
        base_url: { type: 'string' },
        api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        api_key_file: { type: 'string', minLength: 1 },
        trx_id: { type: 'string', minLength: 1, maxLength: 64 },
        schedule: { type: 'string' },
        timeout: { type: 'string' },
        proxy_url: { type: 'string', minLength: 1 },
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
} as const satisfies Record<string, JSONSchema>;
type FileTarget = FromSchema<(typeof PROBE_FILE_EXTRAS)['targets']['items']>;

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

/** The probe's own settings, every one of them but the targets (the table's defaults where none is given). */
function probeSettings(r: Resolved): Omit<ProbeConfig, 'targets'> {
  const exporter = get.bool(r, 'exporter') === true;
  if (exporter && isGiven(r, 'schedule') && get.str(r, 'schedule') !== NO_SCHEDULE)
    throw new UsageError('--exporter and --schedule exclude each other: in the exporter mode Prometheus schedules');
  return {
    schedule: exporter ? NO_SCHEDULE : get.str(r, 'schedule'),
    timeoutMs: get.num(r, 'timeout'),
    bodyCap: get.num(r, 'body-cap'),
    listen: get.listen(r, 'listen'),
    historyLimit: get.num(r, 'history-limit'),
    method: get.str(r, 'method'),
    logFormat: get.str(r, 'log-format'),
    timeoutOffsetMs: get.num(r, 'timeout-offset'),
  };
}

/**
 * Every default of the probe, from the settings table (its one copy): for code and tests that make a config
 * without a command line.
 */
export const PROBE_DEFAULTS: Omit<ProbeConfig, 'targets'> = probeSettings(resolveSettings('probe', [], { env: {} }));

/** One target of the config file, checked: its URL, its key (from a variable or a file), its TLS, its proxy. */
function fileTarget(
  t: FileTarget,
  i: number,
  at: Pick<ProbeConfig, 'schedule' | 'timeoutMs'> & { exporter: boolean },
  here: (path: string) => string,
  env: NodeJS.ProcessEnv,
): ProbeTarget {
  const where = `config file: targets[${i}] (${t.name})`;
  const url = baseUrl(t.base_url, `${where}: base_url`);
  if (!t.api_key_env === !t.api_key_file)
    throw new UsageError(`${where}: give exactly one of api_key_env and api_key_file`);
  let apiKey: string | undefined;
  if (t.api_key_env) {
    apiKey = env[t.api_key_env];
    if (!apiKey) throw new UsageError(`${where}: environment variable ${t.api_key_env} is not set`);
  } else if (t.api_key_file) apiKey = readSecretFile(here(t.api_key_file), `targets[${i}] api_key_file`);
  const tls: TlsOptions | undefined = t.tls
    ? {
        ...(t.tls.ca_file ? { caFile: readableFile(here(t.tls.ca_file), `${where}: tls.ca_file`) } : {}),
        ...(t.tls.server_name ? { serverName: t.tls.server_name } : {}),
        ...(t.tls.insecure_skip_verify ? { insecureSkipVerify: true } : {}),
      }
    : undefined;
  const problem = t.proxy_url ? proxyProblem(t.proxy_url) : undefined;
  if (problem) throw new UsageError(`${where}: proxy_url ${problem}`);
  return {
    name: t.name,
    baseUrl: url,
    apiKey: apiKey ?? '',
    ...(t.trx_id ? { trxId: t.trx_id } : {}),
    ...timing(
      t.name,
      at.exporter ? NO_SCHEDULE : (t.schedule ?? at.schedule),
      t.timeout ? readAs('timeout', t.timeout, `${where}: timeout`) : at.timeoutMs,
      where,
    ),
    ...(tls ? { tls } : {}),
    ...(t.proxy_url ? { proxyUrl: t.proxy_url } : {}),
  };
}

/** The one target of the command line (`--base-url`, its `--name`, its key by the one rule of every command). */
function commandLineTarget(
  r: Resolved,
  url: string,
  at: Pick<ProbeConfig, 'schedule' | 'timeoutMs'>,
  taken: readonly ProbeTarget[],
  env: NodeJS.ProcessEnv,
): ProbeTarget {
  const name = get.str(r, 'name');
  if (!new RegExp(NAME).test(name)) throw new UsageError(`--name must match ${NAME}, got '${name}'`);
  const apiKey = resolveApiKey(r, env);
  if (!apiKey) throw new UsageError('--base-url needs its key: --api-key, --api-key-file or H2H_API_KEY');
  if (taken.some((x) => x.name === name))
    throw new UsageError(`--name '${name}' is already a target of the config file`);
  const caFile = get.str(r, 'ca-file');
  const serverName = get.str(r, 'server-name');
  const tls: TlsOptions = {
    ...(caFile ? { caFile: readableFile(caFile, '--ca-file') } : {}),
    ...(serverName ? { serverName } : {}),
    ...(get.bool(r, 'insecure-skip-verify') ? { insecureSkipVerify: true } : {}),
  };
  const trxId = get.str(r, 'trx-id');
  return {
    name,
    baseUrl: url,
    apiKey,
    ...(trxId ? { trxId } : {}),
    ...timing(name, at.schedule, at.timeoutMs, '--schedule and --timeout'),
    ...(Object.keys(tls).length ? { tls } : {}),
  };
}

/**
 * The probe config from a command line's resolved settings (flag > environment > config file > default) and the
 * file's targets. Targets' keys come from the environment or files, never from the file itself.
 */
export function resolveProbeConfig(r: Resolved, env: NodeJS.ProcessEnv = process.env): ProbeConfig {
  const file = r.file;
  // Paths in the config file are read from its own folder.
  const here = (path: string): string => (file ? resolve(dirname(file.path), path) : path);
  const settings = probeSettings(r);
  const at = { ...settings, exporter: get.bool(r, 'exporter') === true };
  const targets: ProbeTarget[] = [];
  for (const [i, t] of ((file?.data.targets ?? []) as FileTarget[]).entries()) {
    if (targets.some((x) => x.name === t.name))
      throw new UsageError(`config file: targets[${i}]: the name '${t.name}' is used twice`);
    targets.push(fileTarget(t, i, at, here, env));
  }
  const url = get.str(r, 'base-url');
  if (url) {
    targets.push(commandLineTarget(r, url, settings, targets, env));
  } else {
    // These go with --base-url; a key or transaction in the environment may be there for other commands.
    const single = ['api-key', 'api-key-file', 'name', 'trx-id', 'ca-file', 'server-name', 'insecure-skip-verify'];
    const stray = single.filter((f) => r.sources[f]?.startsWith('--'));
    if (stray.length) throw new UsageError(`${stray.map((f) => `--${f}`).join(', ')}: only with --base-url`);
  }
  // The defaults are checked even with no target yet (the embedded simulator takes them).
  timing('', settings.schedule, settings.timeoutMs, 'schedule and timeout');
  return { targets, ...settings };
}

/** A target made from the defaults (the embedded simulator's). */
export function defaultTarget(cfg: ProbeConfig, t: Target & { name: string }): ProbeTarget {
  return { ...t, ...timing(t.name, cfg.schedule, cfg.timeoutMs, 'schedule and timeout') };
}

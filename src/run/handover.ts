import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetData } from '../target/target.js';
import type { ContractConfig } from './config.js';
import type { Preflight } from './preflight.js';

/**
 * Every environment variable that carries state between the gate's processes, in one place:
 * - `H2H_CONTRACT_CONFIG`: the resolved config (never the key), from `h2h contract` to Playwright;
 * - `H2H_API_KEY`: the key, the only way it travels, in the environment and never in a file: set by `h2h contract`
 *   for Playwright, and by the global setup for every process Playwright starts after it (handKeyToWorkers), so that
 *   however the key was given (a flag, H2H_API_KEY, H2H_API_KEY_FILE, a config file's api_key_file or api_key_env),
 *   every worker sends the key the global setup resolved and checked;
 * - `H2H_RUN_FILE`: the run file (below), from the global setup to the test files, workers and reporter;
 * - `H2H_DISCOVERY_FILE`: what `h2h contract` learned of a target before starting Playwright (preflight and
 *   discovery), so that the global setup does not ask again;
 * - `H2H_SETUP_ERROR_FILE`: where the global setup writes why the target stopped the run before any scenario,
 *   for `h2h contract` to exit 2 with it.
 * `npx playwright test` without `h2h contract` resolves the config from the same H2H_* variables as the CLI.
 */
export const HANDOVER_ENV = {
  config: 'H2H_CONTRACT_CONFIG',
  apiKey: 'H2H_API_KEY',
  runFile: 'H2H_RUN_FILE',
  discovery: 'H2H_DISCOVERY_FILE',
  setupError: 'H2H_SETUP_ERROR_FILE',
} as const;

/** What the target showed before the first scenario: its preflight and the data read from its history. */
export interface Discovery {
  preflight: Preflight;
  data: TargetData;
}

/**
 * A private temporary folder for what `h2h contract` hands the global setup: the discovery file (written now) and
 * the file a setup error goes to; the environment that names them, and their removal.
 */
export function writeDiscovery(discovery: Discovery | undefined): {
  env: Record<string, string>;
  setupError(): string | undefined;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-setup-'));
  const errorFile = join(dir, 'setup-error.txt');
  const env: Record<string, string> = { [HANDOVER_ENV.setupError]: errorFile };
  if (discovery) {
    const file = join(dir, 'discovery.json');
    writeFileSync(file, JSON.stringify(discovery), { mode: 0o600 });
    env[HANDOVER_ENV.discovery] = file;
  }
  return {
    env,
    setupError: () => {
      try {
        return readFileSync(errorFile, 'utf8').trim() || undefined;
      } catch {
        return undefined;
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What `h2h contract` handed over, or undefined (`npx playwright test`, the embedded simulator). */
export function readDiscovery(env: NodeJS.ProcessEnv = process.env): Discovery | undefined {
  const path = env[HANDOVER_ENV.discovery];
  return path ? (JSON.parse(readFileSync(path, 'utf8')) as Discovery) : undefined;
}

/** Writes why the target stopped the run before its first scenario, where `h2h contract` reads it. */
export function writeSetupError(message: string, env: NodeJS.ProcessEnv = process.env): void {
  const path = env[HANDOVER_ENV.setupError];
  if (path) writeFileSync(path, `${message}\n`, { mode: 0o600 });
}

/** The config a run works with: the embedded simulator's settings filled in, a base URL and a cap always set. */
export type EffectiveConfig = Omit<ContractConfig, 'apiKey' | 'baseUrl' | 'maxInvites' | 'seed'> & {
  baseUrl: string;
  maxInvites: number;
  seed: number;
};

/**
 * What the global setup (suites/global-setup.ts) learned, for everything after it: Playwright loads the test
 * files after the global setup, in its own process and in every worker, so all of them plan from this.
 */
export interface RunFile {
  config: EffectiveConfig;
  /** Shown in reports: the target, redacted, or "(embedded simulator)". */
  targetLabel: string;
  data: TargetData;
  /** Prefix of this run's transaction IDs. */
  runId: string;
  /** The invite ledger (invite-ledger.ts): one count across worker restarts. */
  ledgerFile: string;
  /**
   * Where the run's pace is served on 127.0.0.1 (pace.ts): every worker's requests take their turn there. Absent
   * when each worker paces itself (workers.ts, sharedPace).
   */
  pacePort?: number;
}

/** Writes the run file in a private temporary folder and points H2H_RUN_FILE at it. */
export function writeRunFile(content: Omit<RunFile, 'ledgerFile'>): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-run-'));
  const path = join(dir, 'run.json');
  const file: RunFile = { ...content, ledgerFile: join(dir, 'ledger.jsonl') };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
  process.env[HANDOVER_ENV.runFile] = path;
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The run file the global setup wrote; undefined outside a run (`npx playwright test --list`). */
export function readRunFile(env: NodeJS.ProcessEnv = process.env): RunFile | undefined {
  const path = env[HANDOVER_ENV.runFile];
  if (!path) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as RunFile;
}

/**
 * Hands the key the global setup resolved to every process Playwright starts after it: its workers (a worker
 * restarted after a failed test included) are forked with the runner's environment as it is then, so a key read
 * from a file, or from the variable a config file names, reaches them as H2H_API_KEY, never through a file.
 */
export function handKeyToWorkers(apiKey: string, env: NodeJS.ProcessEnv = process.env): void {
  env[HANDOVER_ENV.apiKey] = apiKey;
}

/**
 * The key in a process after the global setup (the runner loading the test files, a worker): the one the global
 * setup handed over. An error when it is missing: an empty key would have every request refused, and the run
 * would report the target's refusals as its violations.
 */
export function handedKey(env: NodeJS.ProcessEnv = process.env): string {
  const key = env[HANDOVER_ENV.apiKey];
  if (!key)
    throw new Error(
      `no API key in ${HANDOVER_ENV.apiKey} after the global setup: the gate's processes get it from the global setup (suites/global-setup.ts)`,
    );
  return key;
}

/** The environment that carries a resolved config to Playwright: the key only in H2H_API_KEY. */
export function configEnv(cfg: ContractConfig): Record<string, string> {
  const { apiKey, ...rest } = cfg;
  return { [HANDOVER_ENV.config]: JSON.stringify(rest), ...(apiKey ? { [HANDOVER_ENV.apiKey]: apiKey } : {}) };
}

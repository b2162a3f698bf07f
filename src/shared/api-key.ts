import { dirname, resolve } from 'node:path';
import { readSecretFile, UsageError } from './config-file.js';
import { get, type Resolved } from './settings.js';

/** Where a setting's value was given, highest first: a flag, the environment, the config file. */
function level(source: string | undefined): number {
  if (!source || source === 'default') return 3;
  if (source.startsWith('--')) return 0;
  if (source.startsWith('config file')) return 2;
  return 1;
}

/**
 * The API key of a command's target, by the one rule of every command (h2h contract, replay and probe): the key
 * (`--api-key`) or a key file (`--api-key-file`), whichever was given higher (a flag over the environment,
 * `H2H_API_KEY` or `H2H_API_KEY_FILE`, over the config file's `api_key_file`); given at the same level, the key
 * itself. Only when neither was given, the variable the config file names (`api_key_env`). A key file named in the
 * config file is read from the file's own folder. Undefined when nothing gives a key; a UsageError for an empty
 * key or an `api_key_env` that names an unset variable.
 */
export function resolveApiKey(r: Resolved, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const keyFile = get.str(r, 'api-key-file');
  const fileSource = r.sources['api-key-file'];
  const key = get.str(r, 'api-key');
  let apiKey = key;
  if (keyFile !== undefined && (key === undefined || level(fileSource) < level(r.sources['api-key']))) {
    const inConfig = r.file && fileSource?.startsWith('config file');
    apiKey = readSecretFile(
      inConfig ? resolve(dirname(r.file?.path ?? ''), keyFile) : keyFile,
      fileSource ?? '--api-key-file',
    );
  }
  const keyEnv = r.file?.data.api_key_env;
  if (apiKey === undefined && typeof keyEnv === 'string') {
    apiKey = env[keyEnv];
    if (!apiKey) throw new UsageError(`config file: api_key_env names ${keyEnv}, which is not set`);
  }
  if (apiKey === '') throw new UsageError('the API key is empty');
  return apiKey;
}

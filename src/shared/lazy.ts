import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is asked for, not when the module naming it loads: ajv's compiler
 * and the YAML parser cost a tenth of a CPU-second or more to load, and most processes need neither (a `--help`, a
 * usage error, a Playwright worker that takes the build's validators).
 */
export function lazy<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}

/** ajv's draft 2020-12 class: the config files' validators and the API model's when the build has none. */
export const ajv2020 = lazy<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
/** ajv-formats, with ajv2020. */
export const ajvFormats = lazy<unknown>('ajv-formats');
/** The YAML parser: config files, and an openapi.yaml the build did not parse. */
export const yaml = lazy<typeof import('yaml')>('yaml');

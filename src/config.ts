import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { pointerToPath } from './spec/jsonpath.js';

/** A usage or configuration error: the command prints its message and exits 2. */
export class UsageError extends Error {}

const ajv = new Ajv2020({ allErrors: true, strict: true, useDefaults: true });

/** Validates a config value with ajv and throws UsageError with one exact line per problem. */
export function checkConfig<T>(schema: object, value: unknown, source: string): T {
  const validate = ajv.compile(schema);
  if (validate(value)) return value as T;
  throw new UsageError(
    `${source} is invalid:\n${formatErrors(validate.errors ?? [])
      .map((l) => `  - ${l}`)
      .join('\n')}`,
  );
}

/** One line per ajv error of a config: `$.targets[0].timeout: must match ...`. */
export function formatErrors(errors: readonly ErrorObject[]): string[] {
  return errors.map((e) => {
    const at = pointerToPath(e.instancePath);
    if (e.keyword === 'required') return `${at}: missing required field '${String(e.params.missingProperty)}'`;
    if (e.keyword === 'additionalProperties') return `${at}: unknown field '${String(e.params.additionalProperty)}'`;
    if (e.keyword === 'enum') return `${at}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    return `${at}: ${e.message ?? e.keyword}`;
  });
}

/** Reads and parses a YAML (or JSON) file, turning every failure into a UsageError that names the file. */
export function readYamlFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return parse(text);
  } catch (err) {
    throw new UsageError(`${what} ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Reads a secret from a file (first line, trimmed); never echoes its content in an error. */
export function readSecretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : 'cannot be read'}`);
  }
  const secret = text.split(/\r?\n/)[0]?.trim() ?? '';
  if (!secret) throw new UsageError(`${what} ${path} is empty`);
  return secret;
}

import { accessSync, constants, readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JSONSchema } from 'json-schema-to-ts';
import { parse } from 'yaml';
import { convertAjvErrors } from './ajv-issues.js';
import { pointerToPath } from './jsonpath.js';

/** A string that is one of `values`, as a JSON Schema `enum` (its errors read "must be one of ..."). */
export function oneOf<const T extends readonly string[]>(values: T): { readonly type: 'string'; readonly enum: T } {
  return { type: 'string', enum: values };
}

/** A usage or configuration error: the command prints its message and exits 2. */
export class UsageError extends Error {}

const ajv = new Ajv2020({ allErrors: true, strict: true, useDefaults: true });

/**
 * Validates a config value with ajv against its schema and throws UsageError with one exact line per problem.
 * Each schema is a plain JSON Schema written `as const`; its type is derived from it by json-schema-to-ts
 * (`FromSchema`, at compile time only), so the two cannot disagree.
 */
export function validateConfig<T>(schema: JSONSchema, value: unknown, source: string): T {
  const validate = ajv.compile(schema as object);
  if (validate(value)) return value as T;
  throw new UsageError(
    `${source} is invalid:\n${configLines(validate.errors ?? [], value)
      .map((l) => `  - ${l}`)
      .join('\n')}`,
  );
}

/** One line per problem of a config: `$.targets[0].timeout: must match ...`, `$: unknown field 'x'`. */
function configLines(errors: readonly ErrorObject[], value: unknown): string[] {
  return convertAjvErrors(errors, value).map((i) => {
    if (i.keyword === 'required')
      return `${pointerToPath(i.pointer.slice(0, i.pointer.lastIndexOf('/')))}: missing required field '${i.property}'`;
    if (i.keyword === 'additionalProperties') return `${i.path}: unknown field '${i.property}'`;
    return `${i.path}: ${i.rule}`;
  });
}

/** A file's text; a file that cannot be read is a UsageError naming it (and, unless `quiet`, why). */
function readText(path: string, what: string, quiet = false): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : quiet ? 'cannot be read' : (err as Error).message;
    throw new UsageError(`${what} ${path}: ${why}`);
  }
}

/** Reads and parses a YAML (or JSON) file, turning every failure into a UsageError that names the file. */
export function readYamlFile(path: string, what: string): unknown {
  const text = readText(path, what);
  try {
    return parse(text);
  } catch (err) {
    throw new UsageError(`${what} ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Reads a secret from a file (first line, trimmed); never echoes its content in an error. */
export function readSecretFile(path: string, what: string): string {
  const secret = readText(path, what, true).split(/\r?\n/)[0]?.trim() ?? '';
  if (!secret) throw new UsageError(`${what} ${path} is empty`);
  return secret;
}

/** A file that must be readable (a CA bundle): its path, or a UsageError naming it. */
export function readableFile(path: string, what: string): string {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new UsageError(`${what} ${path}: no such file or not readable`);
  }
  return path;
}

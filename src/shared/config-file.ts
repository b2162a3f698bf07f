import { accessSync, closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JSONSchema } from 'json-schema-to-ts';
import { convertAjvErrors } from './ajv-issues.js';
import { didYouMean } from './did-you-mean.js';
import { pointerToPath } from './jsonpath.js';
import { ajv2020, yaml } from './lazy.js';

/** A string that is one of `values`, as a JSON Schema `enum` (its errors read "must be one of ..."). */
export function oneOf<const T extends readonly string[]>(values: T): { readonly type: 'string'; readonly enum: T } {
  return { type: 'string', enum: values };
}

/** A usage or configuration error: the command prints its message and exits 2. */
export class UsageError extends Error {}

let configAjv: Ajv2020 | undefined;
/** The ajv of config files, made when the first one is validated. */
function ajv(): Ajv2020 {
  // verbose: an error carries its schema, so an unknown key can be matched against the keys it knows.
  configAjv ??= new (ajv2020().Ajv2020)({ allErrors: true, strict: true, useDefaults: true, verbose: true });
  return configAjv;
}

/**
 * Validates a config value with ajv against its schema and throws UsageError with one exact line per problem.
 * Each schema is a plain JSON Schema written `as const`; its type is derived from it by json-schema-to-ts
 * (`FromSchema`, at compile time only), so the two cannot disagree.
 */
export function validateConfig<T>(schema: JSONSchema, value: unknown, source: string): T {
  const validate = ajv().compile(schema as object);
  if (validate(value)) return value as T;
  throw new UsageError(
    `${source} is invalid:\n${configLines(validate.errors ?? [], value)
      .map((l) => `  - ${l}`)
      .join('\n')}`,
  );
}

/**
 * One line per problem of a config: `$.targets[0].timeout: must match ...`, and one per unknown key, each with the
 * known key it most likely meant (`$: unknown field 'timout'; did you mean 'timeout'?`), or the known keys.
 */
function configLines(errors: readonly ErrorObject[], value: unknown): string[] {
  const line = (at: string, key: string, known: readonly string[]): string => {
    const near = didYouMean(key, known);
    const hint = near ? `; did you mean '${near}'?` : known.length ? ` (the known fields: ${known.join(', ')})` : '';
    return `${pointerToPath(at)}: unknown field '${key}'${hint}`;
  };
  const unknown = errors
    .filter((e) => e.keyword === 'additionalProperties')
    .map((e) =>
      line(
        e.instancePath,
        String((e.params as { additionalProperty?: unknown }).additionalProperty),
        Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}),
      ),
    );
  // A map whose keys are named by `propertyNames: {enum}` (the reading file's refusal kinds): the same line.
  const badNames = errors
    .filter((e) => e.keyword === 'enum' && (e as { propertyName?: string }).propertyName !== undefined)
    .map((e) =>
      line(
        e.instancePath,
        String((e as { propertyName?: string }).propertyName),
        ((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map(String),
      ),
    );
  const named = new Set(badNames.length ? ['propertyNames', 'enum'] : []);
  const others = convertAjvErrors(
    errors.filter(
      (e) =>
        e.keyword !== 'additionalProperties' && !named.has(e.keyword) && !(e as { propertyName?: string }).propertyName,
    ),
    value,
  ).map((i) =>
    i.keyword === 'required'
      ? `${pointerToPath(i.pointer.slice(0, i.pointer.lastIndexOf('/')))}: missing required field '${i.property}'`
      : `${i.path}: ${i.rule}`,
  );
  return [...new Set([...unknown, ...badNames, ...others])];
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
    return yaml().parse(text);
  } catch (err) {
    throw new UsageError(`${what} ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The most a key file is read: its first line, and no more. */
export const KEY_FILE_CAP = 4096;

/**
 * At most `cap` bytes of a file, read from its start (a device such as /dev/zero too): the bytes and whether
 * the file holds more. A file that cannot be read is a UsageError naming it (never its content).
 */
export function readHead(path: string, cap: number, what: string): { bytes: Buffer; more: boolean; mode?: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : 'cannot be read'}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UsageError(`${what} ${path}: a folder, not a file`);
    // A regular file's size says at once whether it is over the cap; a device or a pipe is read to cap + 1.
    if (st.isFile() && st.size > cap) return { bytes: Buffer.alloc(0), more: true, mode: st.mode };
    const buf = Buffer.alloc(cap + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      n += got;
      if (got === 0 || n === buf.length) break;
    }
    return { bytes: buf.subarray(0, Math.min(n, cap)), more: n > cap, ...(st.isFile() ? { mode: st.mode } : {}) };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${what} ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

const warnedKeyFiles = new Set<string>();

/**
 * Reads a secret from a file: its first line, trimmed, from at most KEY_FILE_CAP bytes; a longer file is no key
 * file and is refused at once (a path such as /dev/zero never fills memory). Never echoes its content in an
 * error. A file that other users can read is taken, with a warning on stderr (once per file).
 */
export function readSecretFile(
  path: string,
  what: string,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): string {
  const head = readHead(path, KEY_FILE_CAP, what);
  const text = head.bytes.toString('utf8');
  const end = text.search(/\r?\n/);
  if (head.more && head.mode !== undefined)
    throw new UsageError(
      `${what} ${path}: over ${KEY_FILE_CAP} bytes: not a key file (the key alone, on its first line)`,
    );
  if (head.more && end < 0)
    throw new UsageError(
      `${what} ${path}: more than ${KEY_FILE_CAP} bytes without a line end: not a key file (the key on its first line)`,
    );
  const secret = (end < 0 ? text : text.slice(0, end)).trim();
  if (!secret) throw new UsageError(`${what} ${path} is empty`);
  if (head.mode !== undefined && (head.mode & 0o044) !== 0 && !warnedKeyFiles.has(path)) {
    warnedKeyFiles.add(path);
    warn(
      `h2h: warning: ${what} ${path} can be read by other users (mode ${(head.mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 ${path}`,
    );
  }
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

/**
 * A folder to write in, made if it is not there: its path, or a UsageError naming it and why it cannot be (a
 * part of the path that is a regular file, no permission), before anything is sent.
 */
export function writableFolder(path: string, what: string): string {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why: Record<string, string> = {
      ENOTDIR: 'a part of the path is a file, not a folder',
      EEXIST: 'it is a file, not a folder',
      EACCES: 'no permission to write there',
      EROFS: 'a read-only file system',
    };
    throw new UsageError(`${what} ${path}: cannot write reports there (${code}${why[code] ? `: ${why[code]}` : ''})`);
  }
  return path;
}

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { redact } from '../redact.js';
import { UsageError } from '../shared/config-file.js';

export { EXIT } from './commands.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** Where a command writes. Every line passes through redact(). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const stdio: Io = {
  out: (text) => process.stdout.write(`${redact(text)}\n`),
  err: (text) => process.stderr.write(`${redact(text)}\n`),
};

/** One CLI command: its flags, its help text, and a run that returns the exit code. */
export interface Command {
  name: string;
  /** Help text after the usage line: flags and what they mean, with defaults. */
  help: string;
  usage: string;
  options: Options;
  /** How many positional arguments, [min, max]. @defaultValue [0, 0] */
  positionals?: readonly [number, number];
  run(values: Values, positionals: string[], io: Io): Promise<number>;
}

/** Parses argv for a command; unknown flags, missing values and wrong positionals are UsageErrors. */
export function parse(cmd: Command, argv: string[]): { values: Values; positionals: string[]; help: boolean } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`h2h ${cmd.name}: ${(err as Error).message.split('\n')[0]}\nusage: ${cmd.usage}`);
  }
  const values = parsed.values as Values;
  if (values.help) return { values, positionals: parsed.positionals, help: true };
  const [min, max] = cmd.positionals ?? [0, 0];
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    throw new UsageError(
      `h2h ${cmd.name}: expected ${min === max ? min : `${min} to ${max}`} argument(s), got ${parsed.positionals.length}\nusage: ${cmd.usage}`,
    );
  }
  return { values, positionals: parsed.positionals, help: false };
}

/** An integer flag within bounds, or undefined when absent. */
export function intFlag(values: Values, name: string, min: number, max: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${String(raw)}'`);
  }
  return n;
}

export function strFlag(values: Values, name: string): string | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`--${name} needs a non-empty value`);
  return raw;
}

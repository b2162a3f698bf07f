import { redact } from '../redact.js';
import type { CommandName, Resolved } from '../shared/settings.js';

// The commands' exit codes, beside their shape (their one home is src/shared/exit.ts).
export { EXIT } from '../shared/exit.js';

/** Where a command writes. Every line passes through redact(). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** A console that writes each text redacted, as one line, to `out` and `err` (the process's, or a test's). */
export function redactedLines(out: (line: string) => unknown, err: (line: string) => unknown): Io {
  return {
    out: (text) => out(`${redact(text)}\n`),
    err: (text) => err(`${redact(text)}\n`),
  };
}

export const stdio: Io = redactedLines(
  (line) => process.stdout.write(line),
  (line) => process.stderr.write(line),
);

/**
 * One CLI command. Its flags, their layering (flag > environment > config file > default), validation, usage line
 * and the flag part of its --help come from the settings table (src/shared/settings.ts); the command gives its
 * own words around them.
 */
export interface Command {
  name: CommandName;
  /** --help before the flags: what the command does. */
  about: string;
  /** --help after the flags: lists (the examples and exit codes come from the settings table). */
  more?: string;
  /** Positionals as the usage line shows them (`ENDPOINT FILE.json`), and how many: [min, max]. */
  positionals?: { usage: string; range: readonly [number, number] };
  /** The config file's keys that are this command's own, as JSON Schemas (beside the settings' file keys). */
  fileExtras?: Record<string, object>;
  /** It sends requests to a target: the environment's proxy settings must be usable (exit 2 otherwise). */
  sends?: true;
  run(settings: Resolved, io: Io): Promise<number>;
}

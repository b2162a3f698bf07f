import { DocumentError } from '../openapi/load.js';
import { redact, registerSecret } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { EXIT, parse, stdio } from './command.js';
import type { CommandEntry } from './commands.js';

/**
 * Runs one command: its flags parsed, its help, its exit code. A usage or configuration error exits 2 with its
 * message; anything else is a bug of the program: one redacted line, exit 3 (the stack with --debug).
 */
export async function run(entry: CommandEntry, argv: string[], debug: boolean): Promise<number> {
  registerSecret(process.env.H2H_API_KEY);
  try {
    const cmd = await entry.load();
    const { values, positionals, help } = parse(cmd, argv);
    if (help) {
      stdio.out(`usage: ${cmd.usage}\n\n${entry.summary}.\n\n${cmd.help}`);
      return EXIT.OK;
    }
    // Fault injection for the toolkit's own tests: an internal error at a known place.
    if (process.env.H2H_INJECT === 'internal-error')
      throw new Error(`injected internal error (key ${process.env.H2H_API_KEY ?? 'none'})`);
    return await cmd.run(values, positionals, stdio);
  } catch (err) {
    return failed(entry.name, err, debug);
  }
}

/** What a thrown error becomes: exit 2 for usage, else exit 3 with one redacted line (the stack with --debug). */
export function failed(name: string, err: unknown, debug: boolean): number {
  if (err instanceof UsageError || err instanceof DocumentError) {
    stdio.err(`h2h ${name}: ${err.message}`);
    return EXIT.USAGE;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  stdio.err(`h2h ${name}: internal error: ${e.message.split('\n')[0]}${debug ? '' : ' (--debug prints the stack)'}`);
  if (debug && e.stack) process.stderr.write(`${redact(e.stack)}\n`);
  return EXIT.INTERNAL;
}

import { environmentProxies, proxyProblem, proxySecrets } from '../client/proxy.js';
import { DocumentError } from '../openapi/types.js';
import { refuseKeyInFile, registerSecret } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { examplesAndExit, flagHelp, resolveSettings, usageLine } from '../shared/settings.js';
import { type Command, EXIT, type Io, stdio } from './command.js';
import type { CommandEntry } from './commands.js';

/**
 * The whole --help of a command: its usage line, summary and words, its flags, examples and exit codes from the
 * settings table. A command without flags says so in one line, never under an empty heading (as docs/cli.md does).
 */
export function helpText(entry: CommandEntry, cmd: Command): string {
  const flags = flagHelp(cmd.name);
  return [
    `usage: ${usageLine(cmd.name, cmd.positionals?.usage)}`,
    '',
    `${entry.summary}.`,
    '',
    cmd.about,
    '',
    ...(flags
      ? ['Flags (a flag wins over its environment variable, which wins over the config file, then the default):', flags]
      : ['No flags but --help.']),
    ...(cmd.more ? ['', cmd.more] : []),
    '',
    examplesAndExit(cmd.name),
  ].join('\n');
}

/**
 * Runs one command: its settings resolved from the table, its help, its exit code. A usage or configuration error
 * exits 2 with its message; anything else is a bug of the program: one redacted line, exit 3 (the stack with
 * --debug). `io` is the console (the toolkit's tests pass their own, to read a usage error without a process).
 */
export async function run(entry: CommandEntry, argv: string[], debug: boolean, io: Io = stdio): Promise<number> {
  registerSecret(process.env.H2H_API_KEY);
  const proxies = environmentProxies();
  for (const p of proxies) for (const secret of proxySecrets(p.value)) registerSecret(secret);
  try {
    const cmd = await entry.load();
    if (cmd.sends)
      for (const p of proxies) {
        const problem = proxyProblem(p.value);
        if (problem) throw new UsageError(`${p.name}: ${problem}`);
      }
    const settings = resolveSettings(cmd.name, argv, {
      ...(cmd.positionals ? { positionals: cmd.positionals.range } : {}),
      ...(cmd.fileExtras ? { fileExtras: cmd.fileExtras } : {}),
      checkFile: refuseKeyInFile,
    });
    if (settings.help) {
      io.out(helpText(entry, cmd));
      return EXIT.OK;
    }
    for (const line of settings.deprecations) io.err(`h2h ${cmd.name}: ${line}`);
    // Fault injection for the toolkit's own tests: an internal error at a known place.
    if (process.env.H2H_INJECT === 'internal-error')
      throw new Error(`injected internal error (key ${process.env.H2H_API_KEY ?? 'none'})`);
    return await cmd.run(settings, io);
  } catch (err) {
    return failed(entry.name, err, debug, io);
  }
}

/** What a thrown error becomes: exit 2 for usage, else exit 3 with one redacted line (the stack with --debug). */
export function failed(name: string, err: unknown, debug: boolean, io: Io = stdio): number {
  if (err instanceof UsageError || err instanceof DocumentError) {
    io.err(`h2h ${name}: ${err.message}`);
    return EXIT.USAGE;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  io.err(`h2h ${name}: internal error: ${e.message.split('\n')[0]}${debug ? '' : ' (--debug prints the stack)'}`);
  if (debug && e.stack) io.err(e.stack);
  return EXIT.INTERNAL;
}

#!/usr/bin/env node
import { EXIT } from '../shared/exit.js';
import { COMMANDS, topHelp } from './commands.js';

// The entry: only the list of commands is loaded here; a command's code loads when it runs.
const args = process.argv.slice(2);
const debug = args.includes('--debug') || process.env.H2H_DEBUG === '1';
const [name, ...rest] = args.filter((a) => a !== '--debug');
if (process.env.H2H_UNSAFE_DISABLE_REDACTION === '1')
  process.stderr.write('h2h: H2H_UNSAFE_DISABLE_REDACTION=1: keys and phone numbers are NOT hidden in any output\n');
if (!name || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(`${topHelp()}\n`);
  process.exitCode = name ? EXIT.OK : EXIT.USAGE;
} else {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`h2h: unknown command '${name}'\n\n${topHelp()}\n`);
    process.exitCode = EXIT.USAGE;
  } else {
    const { run, failed } = await import('./h2h.js');
    // A long-running command (probe, mock) that throws outside its own flow is still one line, exit 3.
    const crash = (err: unknown): void => {
      process.exitCode = failed(name, err, debug);
      process.exit();
    };
    process.on('uncaughtException', crash);
    process.on('unhandledRejection', crash);
    process.exitCode = await run(entry, rest, debug);
  }
}

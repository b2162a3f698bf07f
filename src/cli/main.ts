#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepCompiledCode } from '../shared/compile-cache.js';
import { didYouMean } from '../shared/did-you-mean.js';
import { EXIT } from '../shared/exit.js';
import { packageRoot } from '../shared/package-root.js';
import { COMMANDS, topHelp } from './commands.js';

// The entry: only the list of commands is loaded here; a command's code loads when it runs, compiled once a
// version (compile-cache.ts).
keepCompiledCode();
const args = process.argv.slice(2);
const debug = args.includes('--debug') || process.env.H2H_DEBUG === '1';
let [name, ...rest] = args.filter((a) => a !== '--debug');
if (process.env.H2H_UNSAFE_DISABLE_REDACTION === '1')
  process.stderr.write('h2h: H2H_UNSAFE_DISABLE_REDACTION=1: keys and phone numbers are NOT hidden in any output\n');
// `h2h help CMD` is `h2h CMD --help`.
if (name === 'help' && rest[0]) [name, rest] = [rest[0], ['--help']];

/** `h2h: unknown command 'contrat'; did you mean contract?`, then the commands. */
function unknown(what: string): void {
  const near = didYouMean(
    what,
    COMMANDS.map((c) => c.name),
  );
  process.stderr.write(`h2h: unknown command '${what}'${near ? `; did you mean ${near}?` : ''}\n\n${topHelp()}\n`);
  process.exitCode = EXIT.USAGE;
}

if (name === '--version' || name === '-V') {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  process.stdout.write(`${pkg.name} ${pkg.version} (node ${process.version})\n`);
  process.exitCode = EXIT.OK;
} else if (!name || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(`${topHelp()}\n`);
  process.exitCode = name ? EXIT.OK : EXIT.USAGE;
} else {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) unknown(name);
  else {
    const { run, failed } = await import('./h2h.js');
    // A long-running command (probe, mock) that throws outside its own flow is still one line, exit 3.
    const crash = (err: unknown): void => {
      process.exitCode = failed(entry.name, err, debug);
      process.exit();
    };
    process.on('uncaughtException', crash);
    process.on('unhandledRejection', crash);
    process.exitCode = await run(entry, rest, debug);
  }
}

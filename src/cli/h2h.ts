import { DocumentError } from '../openapi/load.js';
import { UsageError } from '../shared/config-file.js';
import { type Command, EXIT, parse, stdio } from './command.js';
import { contract } from './contract.js';
import { diff } from './diff.js';
import { docs } from './docs.js';
import { lint } from './lint.js';
import { mock } from './mock.js';
import { probe } from './probe.js';
import { replay } from './replay.js';
import { validate } from './validate.js';

/** Every command, by name: the whole CLI in one place. */
export const COMMANDS: readonly Command[] = [contract, replay, probe, mock, validate, docs, lint, diff];

function topHelp(): string {
  return `h2h: contract testing and monitoring of the H2H member-invitation API

usage: h2h COMMAND [flags]   (h2h COMMAND --help for its flags)

${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Exit codes: 0 the contract holds, 1 a clause is violated, 2 usage or configuration error.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    stdio.out(topHelp());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  try {
    if (!cmd) throw new UsageError(`unknown command '${name}'\n\n${topHelp()}`);
    const { values, positionals, help } = parse(cmd, rest);
    if (help) {
      stdio.out(`usage: ${cmd.usage}\n\n${cmd.summary}.\n\n${cmd.help}`);
      return EXIT.OK;
    }
    return await cmd.run(values, positionals, stdio);
  } catch (err) {
    if (err instanceof UsageError || err instanceof DocumentError) {
      stdio.err(`h2h${cmd ? ` ${cmd.name}` : ''}: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
}

import { cliReference } from '../shared/settings.js';
import { COMMANDS } from './commands.js';

/** docs/cli.md, from the settings table and each command's own words (`npm run docs:cli` writes it). */
export async function cliMarkdown(): Promise<string> {
  const about = Object.fromEntries(
    await Promise.all(
      COMMANDS.map(async (c) => {
        const cmd = await c.load();
        return [c.name, `${c.summary}.\n\n${cmd.about}${cmd.more ? `\n\n${cmd.more}` : ''}`] as const;
      }),
    ),
  );
  return cliReference(about as Parameters<typeof cliReference>[0]);
}

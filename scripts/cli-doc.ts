// Writes docs/cli.md from the settings table (src/shared/settings.ts): `npm run docs:cli`. A test keeps it equal.
import { writeFileSync } from 'node:fs';
import { cliMarkdown } from '../src/cli/reference.ts';

writeFileSync(new URL('../docs/cli.md', import.meta.url), await cliMarkdown());

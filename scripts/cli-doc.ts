// Writes docs/cli.md from the settings table (src/shared/settings.ts): `npm run docs:cli`. A test keeps it equal.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliMarkdown } from '../src/cli/reference.ts';
import { packageRoot } from '../src/shared/package-root.ts';

writeFileSync(join(packageRoot(), 'docs', 'cli.md'), await cliMarkdown());

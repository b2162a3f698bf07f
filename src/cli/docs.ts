import { accessSync, constants, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDocs } from '../docs/build.js';
import { loadApiModel } from '../openapi/load.js';
import { UsageError } from '../shared/config-file.js';
import { get } from '../shared/settings.js';
import { type Command, EXIT } from './command.js';

export const docs: Command = {
  name: 'docs',
  about: `Writes <reports-dir>/docs/index.html (Redoc via @redocly/cli build-docs, its bundle inlined: it opens with no
network) and <reports-dir>/docs/API.md (Markdown from the toolkit's own code), with every endpoint, both methods,
every alias, the response fields, the examples, the assumptions (x-assumption) and the contract clauses
(x-clauses). The same document gives the same bytes. (The old --out DIR writes into DIR itself.)`,
  async run(settings, io) {
    const dir = get.str(settings, 'reports-dir') ?? 'reports';
    const out = resolve(settings.sources['reports-dir'] === '--out' ? dir : join(dir, 'docs'));
    try {
      mkdirSync(out, { recursive: true });
      accessSync(out, constants.W_OK);
    } catch (err) {
      throw new UsageError(
        `${settings.sources['reports-dir'] ?? '--reports-dir'} ${out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    const r = buildDocs(loadApiModel(), out);
    io.out(`h2h docs: wrote ${r.html} and ${r.markdown}`);
    return EXIT.OK;
  },
};

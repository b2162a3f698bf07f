import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
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
(x-clauses). The same document gives the same bytes. FILE: another copy of the document (an edit under review,
say); default the bundled openapi.yaml. (The old --out DIR writes into DIR itself.)`,
  positionals: { usage: '[FILE]', range: [0, 1] },
  async run(settings, io) {
    const [file] = settings.positionals;
    const doc = file ? resolve(file) : undefined;
    if (doc && !existsSync(doc)) throw new UsageError(`${doc}: no such file`);
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
    const r = buildDocs(doc ? loadApiModel(doc) : loadApiModel(), out);
    io.out(`h2h docs: wrote ${r.html} and ${r.markdown}`);
    return EXIT.OK;
  },
};

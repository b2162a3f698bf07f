import { accessSync, constants, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildDocs } from '../docs/build.js';
import { loadApiModel } from '../openapi/load.js';
import { UsageError } from '../shared/config-file.js';
import { type Command, EXIT, strFlag } from './command.js';

export const docs: Command = {
  name: 'docs',
  usage: 'h2h docs [--out DIR]',
  help: `Writes DIR/index.html (Redoc via @redocly/cli build-docs, its bundle inlined: it opens with no network)
and DIR/API.md (Markdown from the toolkit's own code), with every endpoint, both methods, every alias, the
response fields, the examples, the assumptions (x-assumption) and the contract clauses (x-clauses). The same
document gives the same bytes.

  --out DIR   default reports/docs`,
  options: { out: { type: 'string' } },
  async run(values, _pos, io) {
    const out = resolve(strFlag(values, 'out') ?? 'reports/docs');
    try {
      mkdirSync(out, { recursive: true });
      accessSync(out, constants.W_OK);
    } catch (err) {
      throw new UsageError(
        `--out ${out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    const r = buildDocs(loadApiModel(), out);
    io.out(`h2h docs: wrote ${r.html} and ${r.markdown}`);
    return EXIT.OK;
  },
};

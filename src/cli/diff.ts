import type { OpenAPIV3_1 } from 'openapi-types';
import { type Change, diffDocuments } from '../docs/diff.js';
import { readYamlFile, UsageError } from '../shared/config-file.js';
import { get } from '../shared/settings.js';
import { type Command, EXIT } from './command.js';

function readDoc(path: string): OpenAPIV3_1.Document {
  const doc = readYamlFile(path, 'document') as OpenAPIV3_1.Document | null;
  if (!doc || typeof doc !== 'object' || !String(doc.openapi ?? '').startsWith('3.'))
    throw new UsageError(`${path} is not an OpenAPI 3 document`);
  return doc;
}

/** The changes from one document file to another, breaking first: what `h2h diff` prints and exits on. */
export function diffFiles(oldPath: string, newPath: string): { breaking: Change[]; safe: Change[] } {
  const changes = diffDocuments(readDoc(oldPath), readDoc(newPath));
  return { breaking: changes.filter((c) => c.kind === 'breaking'), safe: changes.filter((c) => c.kind === 'safe') };
}

export const diff: Command = {
  name: 'diff',
  about: `Breaking: a removed endpoint, method, parameter or alias; a parameter added as required or made required;
a parameter's type changed, its enum narrowed, its pattern changed or its maxLength lowered; a response field
removed, its type changed, made optional, or given new enum values. Safe: the opposite of each, and additions.
A name a schema requires without defining it (what \`h2h lint\` reports as required-defined) counts as what it
is on the wire: in a request, a parameter every client must now send (breaking); in an answer, a field always
sent (safe, an addition).`,
  positionals: { usage: 'OLD.yaml NEW.yaml', range: [2, 2] },
  async run(settings, io) {
    const [oldPath = '', newPath = ''] = settings.positionals;
    const { breaking, safe } = diffFiles(oldPath, newPath);
    if (get.bool(settings, 'json')) io.out(JSON.stringify({ breaking, safe }, null, 2));
    else {
      io.out(`h2h diff: ${breaking.length} breaking, ${safe.length} safe change(s)`);
      for (const c of breaking) io.out(`  BREAKING ${c.at}: ${c.what}`);
      for (const c of safe) io.out(`  safe     ${c.at}: ${c.what}`);
    }
    return breaking.length ? EXIT.VIOLATED : EXIT.OK;
  },
};

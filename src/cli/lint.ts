import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { offRulesExplained } from '../docs/config-rules.js';
import { ROOT, redocly } from '../docs/redocly.js';
import { type LintProblem, lintDocument } from '../docs/rules.js';
import { DEFAULT_DOCUMENT_PATH } from '../openapi/load.js';
import { readYamlFile, UsageError } from '../shared/config-file.js';
import { type Command, EXIT } from './command.js';

/** The toolkit's rules on a document file, and on the committed redocly.yaml: what `h2h lint` adds to Redocly. */
export function toolkitProblems(path: string): LintProblem[] {
  const doc = readYamlFile(path, 'document');
  if (!doc || typeof doc !== 'object') throw new UsageError(`${path} is not an OpenAPI document`);
  return [
    ...lintDocument(doc as OpenAPIV3_1.Document, path),
    ...offRulesExplained(readFileSync(join(ROOT, 'redocly.yaml'), 'utf8')),
  ];
}

/** One problem as `h2h lint` prints it. */
export const problemLine = (p: LintProblem): string => `FAIL ${p.rule} ${p.at}: ${p.message}`;

export const lint: Command = {
  name: 'lint',
  about: `Runs \`redocly lint\` with the committed redocly.yaml (where every rule switched off says why), then the
toolkit's rules: every path has GET and POST with the same parameters and aliases; every alias is unique in its
operation; every clause id is attached (x-clauses) to an operation; every name a schema requires is one of its
properties; every example validates against its schema.
FILE defaults to openapi.yaml.`,
  positionals: { usage: '[FILE]', range: [0, 1] },
  async run(settings, io) {
    const [file] = settings.positionals;
    const path = resolve(file ?? DEFAULT_DOCUMENT_PATH);
    if (!existsSync(path)) throw new UsageError(`${path}: no such file`);
    const r = redocly(['lint', path, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish']);
    const redoclyOk = r.status === 0;
    io.out(`redocly lint: ${redoclyOk ? 'no errors' : 'ERRORS'}`);
    if (!redoclyOk) io.out(r.output);
    const problems = toolkitProblems(path);
    for (const p of problems) io.out(problemLine(p));
    io.out(`toolkit rules: ${problems.length === 0 ? 'no problems' : `${problems.length} problem(s)`}`);
    return redoclyOk && problems.length === 0 ? EXIT.OK : EXIT.VIOLATED;
  },
};

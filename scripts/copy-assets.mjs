// After tsc: the files dist/ reads at run time beside its JavaScript (the simulator's fixture), openapi.yaml
// parsed once (dist/openapi.json, with the SHA-256 of the text it came from) and its validators compiled once
// (dist/openapi-validators.cjs, ajv's standalone code, src/openapi/precompile.ts): every process that loads the API
// model would otherwise parse the YAML again and compile them again (about 0.2 CPU-seconds each; a gate run has
// three or more such processes).
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

cpSync(
  new URL('../src/simulator/fixtures.yaml', import.meta.url),
  new URL('../dist/src/simulator/fixtures.yaml', import.meta.url),
);
const text = readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8');
const sha256 = createHash('sha256').update(text).digest('hex');
const document = parse(text);
writeFileSync(new URL('../dist/openapi.json', import.meta.url), JSON.stringify({ sha256, document }));
const { ApiModel } = await import('../dist/src/openapi/model.js');
const { precompiledModule } = await import('../dist/src/openapi/precompile.js');
writeFileSync(
  new URL('../dist/openapi-validators.cjs', import.meta.url),
  precompiledModule(new ApiModel(document, 'openapi.yaml'), sha256),
);

// After tsc: the files dist/ reads at run time beside its JavaScript (the simulator's fixture), and openapi.yaml
// parsed once (dist/openapi.json, with the SHA-256 of the text it came from): every process that loads the API
// model would otherwise parse the YAML again (about 0.2 CPU-seconds each; a gate run has three or more).
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

cpSync(
  new URL('../src/simulator/fixtures.yaml', import.meta.url),
  new URL('../dist/src/simulator/fixtures.yaml', import.meta.url),
);
const text = readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8');
const sha256 = createHash('sha256').update(text).digest('hex');
writeFileSync(new URL('../dist/openapi.json', import.meta.url), JSON.stringify({ sha256, document: parse(text) }));

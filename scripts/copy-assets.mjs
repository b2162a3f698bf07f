// After tsc: the files dist/ reads at run time beside its JavaScript (the simulator's fixture).
import { cpSync } from 'node:fs';

cpSync(
  new URL('../src/simulator/fixtures.yaml', import.meta.url),
  new URL('../dist/src/simulator/fixtures.yaml', import.meta.url),
);

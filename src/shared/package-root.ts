import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder of this package (where its package.json is), whether the code runs as TypeScript from src/ or as
 * the JavaScript built into dist/ (one level deeper): what reads openapi.yaml or starts Playwright finds it here.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'h2h-contract') {
      root = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('h2h-contract: no package.json of this package above its code');
    dir = up;
  }
}

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

export const ROOT = packageRoot();
const CLI = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

/** Runs the Redocly CLI (pinned in package.json) from the repository root, where redocly.yaml is. */
export function redocly(args: string[]): { status: number; output: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  // Drop the Node 20 end-of-life banner: it says nothing about the document.
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`
    .split('\n')
    .filter((l) => !/[║╔╚═]/.test(l))
    .join('\n')
    .trim();
  return { status: r.status ?? 2, output };
}

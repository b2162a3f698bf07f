import { accessSync, constants, mkdirSync } from 'node:fs';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Enable = (dir: string) => { directory?: string };

/**
 * Keeps V8's compiled code of every module on disk (Node 22.1 and later): this process, and the processes it starts
 * (Playwright's runner and workers inherit NODE_COMPILE_CACHE), skip compiling what did not change since the last
 * run. Most of a Playwright process's start is compiling its bundles: an embedded `h2h contract` takes about a tenth
 * less CPU (docs/benchmarks.md). The folder is Node's own default, `node-compile-cache` in the temporary folder.
 *
 * Only where that folder is this user's to write: it is made here one level deep, never recursively, because Node's
 * cache looped forever (deaf to SIGTERM) on a temporary folder it could not make (TMPDIR under /proc). A cache set by
 * the user (NODE_COMPILE_CACHE) is Node's to open before this runs; NODE_DISABLE_COMPILE_CACHE=1 turns it off; Node
 * 20 has none. Returns the folder in use, if any.
 */
export function keepCompiledCode(): string | undefined {
  const enable = (nodeModule as { enableCompileCache?: Enable }).enableCompileCache;
  if (!enable || process.env.NODE_DISABLE_COMPILE_CACHE || process.env.NODE_COMPILE_CACHE) return undefined;
  const dir = join(tmpdir(), 'node-compile-cache');
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return undefined;
  }
  const { directory } = enable(dir);
  if (directory) process.env.NODE_COMPILE_CACHE = directory;
  return directory;
}

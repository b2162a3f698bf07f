// The files h2h init writes, the names they share, and how one is written (never over a file that is there).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The files `h2h init` writes, relative to the folder it runs in. */
export const INIT_FILES = {
  gate: 'h2h.config.yaml',
  probe: 'probe.yaml',
  github: '.github/workflows/h2h-contract.yml',
  gitlab: '.gitlab-ci.yml',
} as const;

/** Where the gate writes what CI keeps: the default of --reports-dir, the reporter's JUnit file, the summary. */
export const REPORTS = 'reports';
export const JUNIT = `${REPORTS}/junit.xml`;
export const SUMMARY_MD = `${REPORTS}/contract-summary.md`;
/** The variable every written file takes the key from (the gate's own, H2H_API_KEY). */
export const KEY_ENV = 'H2H_API_KEY';

/** The gate's run, as every job and the next steps write it. */
export const GATE_RUN = `contract --config ${INIT_FILES.gate}`;

/** What became of one file. */
export type Outcome =
  | { path: string; what: string; status: 'wrote' }
  | { path: string; what: string; status: 'exists'; same?: boolean }
  | { path: string; what: string; status: 'failed'; reason: string };

/** Writes a file that is not there; never replaces one (O_EXCL: not even one made in between, nor a symlink). */
export function writeNew(dir: string, path: string, what: string, text: string): Outcome {
  const full = join(dir, path);
  const failed = (err: unknown, why?: string): Outcome => {
    const e = err as NodeJS.ErrnoException;
    return { path, what, status: 'failed', reason: why ?? e.message.split('\n')[0] ?? String(err) };
  };
  try {
    mkdirSync(dirname(full), { recursive: true });
  } catch (err) {
    // A file where a folder must be (.github, say): the file cannot be written, whatever the code says.
    const code = (err as NodeJS.ErrnoException).code;
    const notFolder = code === 'EEXIST' || code === 'ENOTDIR';
    return failed(err, notFolder ? `${code}: a file is where the folder ${dirname(path)} must be` : undefined);
  }
  try {
    writeFileSync(full, text, { flag: 'wx' });
    return { path, what, status: 'wrote' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return failed(err);
    let same = false;
    try {
      same = readFileSync(full, 'utf8') === text;
    } catch {
      // A folder or an unreadable file of that name: it is there, and it is not this.
    }
    return { path, what, status: 'exists', same };
  }
}

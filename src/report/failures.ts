import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endpointUrl } from '../client/client.js';
import { forms } from '../openapi/numbers.js';
import type { Exchange, Finding, Params } from '../openapi/types.js';
import { type GeneratedCase, nearMissKeys } from '../plan/generators/cases.js';
import { redact } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { refusalExpected } from '../target/invite-ledger.js';

/**
 * A failing generated case, saved to reports/failures/ so it can be read and sent again. The key, the keys
 * derived from it and the configured test numbers are never written: they are placeholders (`{{api_key}}`,
 * `{{near-miss:N}}`, `{{msisdn:N:08}}`) that `h2h replay` fills in from its own config, and shell variables in
 * the curl line.
 */
export interface SavedFailure {
  version: 1;
  seed: number;
  /** A single generated request, sent again as saved; absent for a scenario of several requests. */
  case?: GeneratedCase;
  /** The scenario it came from; a case of several requests (INV-5 in flight) is replayed by running it again. */
  scenario: string;
  /** The failure lines, one per clause and place. */
  findings: string[];
  response: { httpStatus: number; body: string };
  /** A curl command line that sends the case again (set H2H_API_KEY, and H2H_MSISDN_N for test numbers). */
  curl: string;
  target: string;
}

/** What stands for a secret or a test number in a saved case. */
interface Holes {
  apiKey: string;
  msisdns: readonly string[];
}

/** Every secret or test number of a target, beside the placeholder that stands for it (longest first). */
function holesOf(holes: Holes): [string, string][] {
  const out: [string, string][] = [[holes.apiKey, '{{api_key}}']];
  nearMissKeys(holes.apiKey).forEach((k, i) => {
    out.push([k.value, `{{near-miss:${i}}}`]);
  });
  holes.msisdns.forEach((m, i) => {
    const f = forms(m);
    out.push([f.f08, `{{msisdn:${i}:08}}`], [f.f62, `{{msisdn:${i}:62}}`]);
  });
  return out.filter(([v]) => v.length >= 4).sort((a, b) => b[0].length - a[0].length);
}

/** A text with every secret and test number of the target replaced by its placeholder. */
function holed(text: string, holes: Holes): string {
  let out = text;
  for (const [value, hole] of holesOf(holes)) out = out.split(value).join(hole);
  return out;
}

function placeholders(params: Params, holes: Holes): Params {
  const nearMiss = nearMissKeys(holes.apiKey).map((k) => k.value);
  const numbers = holes.msisdns.flatMap((m, i) => {
    const f = forms(m);
    return [
      [f.f08, `{{msisdn:${i}:08}}`],
      [f.f62, `{{msisdn:${i}:62}}`],
    ] as const;
  });
  const hole = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    if (v === holes.apiKey) return '{{api_key}}';
    const i = nearMiss.indexOf(v);
    if (i >= 0) return `{{near-miss:${i}}}`;
    return numbers.find(([n]) => n === v)?.[1] ?? v;
  };
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, hole(v)]));
}

/** Fills a saved case's placeholders from a target's key and test numbers. */
export function fillPlaceholders(params: Params, holes: Holes): Params {
  const nearMiss = nearMissKeys(holes.apiKey).map((k) => k.value);
  const fill = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    if (v === '{{api_key}}') return holes.apiKey;
    const near = /^\{\{near-miss:(\d+)\}\}$/.exec(v);
    if (near) return nearMiss[Number(near[1])] ?? v;
    const num = /^\{\{msisdn:(\d+):(08|62)\}\}$/.exec(v);
    if (num) {
      const m = holes.msisdns[Number(num[1])];
      if (!m)
        throw new UsageError(
          `a saved case names test number ${num[1]}, but only ${holes.msisdns.length} are configured`,
        );
      return num[2] === '08' ? forms(m).f08 : forms(m).f62;
    }
    return v;
  };
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, fill(v)]));
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl line that sends the request again, placeholders as shell variables (so nothing secret is in it). */
export function curlLine(baseUrl: string, c: GeneratedCase, saved: Params): string {
  // A placeholder becomes a shell variable: `{{api_key}}` -> ${H2H_API_KEY}, `{{msisdn:0:08}}` -> ${H2H_MSISDN_0_08}.
  const variable = (name: string): string => `\${${name}}`;
  const asShell = (v: string): string =>
    v
      .replace(/\{\{api_key\}\}/g, variable('H2H_API_KEY'))
      .replace(/\{\{near-miss:(\d+)\}\}/g, (_m, n: string) => variable(`H2H_NEAR_MISS_${n}`))
      .replace(/\{\{msisdn:(\d+):(08|62)\}\}/g, (_m, n: string, f: string) => variable(`H2H_MSISDN_${n}_${f}`))
      .replace(/\{\{fresh-trx\}\}/g, 'H2H-CURL-$(date +%s%N)');
  // Inside double quotes the shell fills the variables in; everything else is kept as is.
  const dq = (s: string): string => `"${asShell(s.replace(/(["\\`$])/g, '\\$1'))}"`;
  if (c.method === 'GET') {
    const url = endpointUrl(baseUrl, c.endpoint, 'GET', {});
    const args = Object.entries(saved).map(([k, v]) => `--data-urlencode ${dq(`${k}=${String(v)}`)}`);
    return `curl -sS -G ${shellQuote(url)} ${args.join(' ')}`;
  }
  return `curl -sS -X POST ${shellQuote(endpointUrl(baseUrl, c.endpoint, 'POST', {}))} -H 'content-type: application/json' --data-raw ${dq(JSON.stringify(saved))}`;
}

/** Writes one failing case as JSON under `dir`; returns its path. The name is stable for the same case. */
export function saveFailure(
  dir: string,
  scenario: string,
  c: GeneratedCase,
  ex: Exchange,
  findings: readonly Finding[],
  lines: readonly string[],
  run: { seed: number; baseUrl: string } & Holes,
): string {
  mkdirSync(dir, { recursive: true });
  const saved = placeholders(c.params, run);
  // An invite that a clause says must be refused was sent with a fresh trx_id; sent again, it needs another.
  if (c.endpoint === 'invite-member' && refusalExpected(c.intent)) saved.trx_id = '{{fresh-trx}}';
  const savedCase: GeneratedCase = { ...c, params: saved };
  const id = createHash('sha256')
    .update(JSON.stringify([c.phase, c.endpoint, c.method, c.label]))
    .digest('hex')
    .slice(0, 10);
  const clause = findings[0]?.clause ?? 'X';
  const path = join(dir, `${c.phase}-${clause}-${c.endpoint}-${c.method}-${id}.json`);
  const file: SavedFailure = {
    version: 1,
    seed: run.seed,
    scenario,
    case: savedCase,
    findings: [...lines],
    response: { httpStatus: ex.httpStatus, body: redact(ex.bodyText.slice(0, 4096)) },
    curl: curlLine(run.baseUrl, c, saved),
    target: redact(run.baseUrl),
  };
  // Not through redact(): its patterns would mask the placeholders themselves (`"api_key": "{{api_key}}"`).
  // The response is redacted above; whatever else held a secret or a test number now holds its placeholder.
  writeFileSync(path, `${holed(JSON.stringify({ ...file, findings: file.findings.map(redact) }, null, 2), run)}\n`);
  return path;
}

/** Writes a failing scenario of several requests (INV-5 in flight): replay runs it again. */
export function saveScenarioFailure(
  dir: string,
  scenario: string,
  lines: readonly string[],
  run: { seed: number; baseUrl: string },
): string {
  mkdirSync(dir, { recursive: true });
  const id = createHash('sha256').update(scenario).digest('hex').slice(0, 10);
  const path = join(dir, `scenario-${id}.json`);
  const file: SavedFailure = {
    version: 1,
    seed: run.seed,
    scenario,
    findings: [...lines],
    response: { httpStatus: 0, body: '' },
    curl: '',
    target: redact(run.baseUrl),
  };
  writeFileSync(path, `${redact(JSON.stringify(file, null, 2))}\n`);
  return path;
}

/** The saved failures of FILE arguments, or of every JSON file in `dir` when none are given. */
export function loadFailures(files: readonly string[], dir: string): { path: string; failure: SavedFailure }[] {
  let paths = [...files];
  if (paths.length === 0) {
    try {
      paths = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(dir, f));
    } catch {
      throw new UsageError(`no saved failures: ${dir} does not exist (run h2h contract first, or name the files)`);
    }
    if (paths.length === 0) throw new UsageError(`no saved failures in ${dir}`);
  }
  return paths.map((path) => {
    let failure: SavedFailure;
    try {
      failure = JSON.parse(readFileSync(path, 'utf8')) as SavedFailure;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(
        `${path}: ${code === 'ENOENT' ? 'no such file' : `not a saved failure (${(err as Error).message})`}`,
      );
    }
    if (failure?.version !== 1 || typeof failure.scenario !== 'string')
      throw new UsageError(`${path}: not a saved failure of h2h contract (version 1)`);
    return { path, failure };
  });
}

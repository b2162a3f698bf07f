import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApiModel } from '../openapi/load.js';
import { buildCatalogue } from '../plan/catalogue/index.js';
import { planRun } from '../plan/plan.js';
import { changedAtLeast, changeLine } from '../reading/index.js';
import { redact, registerPhone, registerSecret } from '../redact.js';
import { type Baseline, compareToBaseline, readBaseline } from '../report/baseline.js';
import { type ContractSummary, exitCodeOf, summaryMarkdown } from '../report/summary.js';
import { CONTRACT_FILE_EXTRAS, type ContractConfig, insecureWarning, resolveContractConfig } from '../run/config.js';
import { configEnv, type Discovery, writeDiscovery } from '../run/handover.js';
import { preflight, targetProblem } from '../run/preflight.js';
import { concurrencyOf, workersFor } from '../run/workers.js';
import { UsageError, writableFolder } from '../shared/config-file.js';
import { packageRoot } from '../shared/package-root.js';
import { shellWord } from '../shared/shell.js';
import { checkEmbeddedOptions } from '../simulator/embedded.js';
import { localPace } from '../target/pace.js';
import { httpSend } from '../target/send-policy.js';
import { discover } from '../target/target.js';
import { newSeed } from '../target/trx-ids.js';
import { type Command, EXIT, type Io } from './command.js';

/**
 * The gate's Playwright config beside its suites: suites/playwright.config.ts in development, and built, the
 * JavaScript in dist/suites/ (this file is then dist/src/cli/contract.js: the same two levels up).
 */
const PLAYWRIGHT_CONFIG = fileURLToPath(
  new URL(`../../suites/playwright.config${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);
const PLAYWRIGHT_CLI = join(createRequire(import.meta.url).resolve('@playwright/test/package.json'), '..', 'cli.js');

/** Copies a child's output line by line through redact(). */
function pipeRedacted(stream: NodeJS.ReadableStream, write: (text: string) => void): void {
  let rest = '';
  stream.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) write(line);
  });
  stream.on('end', () => {
    if (rest) write(rest);
  });
}

export const contract: Command = {
  name: 'contract',
  sends: true,
  about: `Runs every clause on GET and POST and every alias (Playwright, suites/), and writes the reports
directory: html/, junit.xml, contract-summary.json and contract-summary.md.

Every clause ends in one of four outcomes: held (judged, and it holds); violated (a finding of it, wherever it
was found); not judged by your choice (read-only, --grep, the invite cap, a known deviation); or
inconclusive: the run meant to judge it and could not, and says why and what would let it (no history: allow
writes; the balance ran out: top it up or lower --max-invites; no answer; a rate limit past --max-wait).

Two names of one parameter with different values in one request (api_key and key, q and search, ...) are sent
on purpose: the target may refuse, use the canonical name or use the alias. The summary lists what it did,
never a violation; the answer is judged as the answer to the value it used.

Answers may come compressed: the gate asks for gzip, deflate and br (zstd where Node has it) and decodes them.

Config file only: api_key_env (a variable that holds the key), deviations: [{clause, reason}].`,
  fileExtras: CONTRACT_FILE_EXTRAS,
  async run(settings, io) {
    const cfg = resolveContractConfig(settings);
    const insecure = insecureWarning(cfg, 'contract');
    if (insecure) io.err(insecure);
    registerSecret(cfg.apiKey);
    for (const m of cfg.msisdns) registerPhone(m);
    cfg.seed ??= newSeed();
    if (!cfg.baseUrl) checkEmbeddedOptions(cfg.simulator);
    const plan = planRun(buildCatalogue(loadApiModel()), { ...cfg, maxInvites: cfg.maxInvites ?? 0 });
    if (plan.entries.length === 0) throw new UsageError(`--grep '${cfg.grep}' matches no scenario`);
    // Before the first request: a reports folder that cannot be written is the user's to fix.
    writableFolder(cfg.reportsDir, settings.sources['reports-dir'] ?? '--reports-dir');
    let discovery: Discovery | undefined;
    if (cfg.baseUrl) {
      // The target is checked and its history read here, before Playwright starts: a target that is not the API,
      // refuses the key or stops answering exits 2 with one line; the global setup takes what was learned.
      const label = redact(cfg.baseUrl);
      const raw = httpSend(cfg.baseUrl, cfg);
      const policy = { maxWaitMs: cfg.maxWaitMs, pace: localPace({ rate: cfg.rateLimit }) };
      try {
        const pre = await preflight(raw, policy, cfg.apiKey ?? '', label);
        const data = await discover(raw, policy, { ...cfg, baseUrl: cfg.baseUrl, apiKey: cfg.apiKey ?? '' });
        discovery = { preflight: pre, data };
      } catch (err) {
        throw targetProblem(err, label, 'preflight and discovery read it') ?? err;
      }
    }
    // Read before the run: the baseline may be the very contract-summary.json this run replaces.
    const baseline = cfg.baseline ? readBaseline(cfg.baseline) : undefined;
    const handover = writeDiscovery(discovery);
    try {
      return await runPlaywright(
        cfg,
        io,
        handover,
        workersFor(
          plan.entries.map((e) => e.scenario.area),
          concurrencyOf(cfg),
        ),
        baseline,
      );
    } finally {
      handover.remove();
    }
  },
};

async function runPlaywright(
  cfg: ContractConfig,
  io: Io,
  handover: ReturnType<typeof writeDiscovery>,
  workers: number,
  baseline?: Baseline,
): Promise<number> {
  const summaryPath = join(cfg.reportsDir, 'contract-summary.json');
  for (const f of ['contract-summary.json', 'contract-summary.md', 'junit.xml', 'provider-reading.yaml'])
    rmSync(join(cfg.reportsDir, f), { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ...configEnv(cfg), ...handover.env, FORCE_COLOR: '0' };
  delete env.H2H_RUN_FILE;
  // The suites are compiled JavaScript: Playwright's loader for TypeScript in ES modules has nothing to do, and on
  // Node 20 it answers every import from a thread of its own (1.5 to 2 CPU-seconds a run, docs/benchmarks.md).
  if (PLAYWRIGHT_CONFIG.endsWith('.js')) env.PW_DISABLE_TS_ESM = '1';
  // Against a target, Playwright's processes (its workers inherit the flag) favour memory over speed: a busy
  // account's history answers are megabytes, and V8 would otherwise let several of them pile up as garbage
  // (docs/benchmarks.md, `npm run bench:busy`). The embedded simulator's answers are small: speed wins there.
  // No Maglev (V8's mid-tier compiler, on by default from Node 22): a process that exits while a Maglev job is in
  // flight can deadlock in Node's platform shutdown (nodejs/node#54918, #64560), and a Playwright worker that never
  // exits holds the runner for five minutes, then fails the run (microsoft/playwright#39753). A whole embedded run
  // on Node 24 took no more CPU without it (11.1 against 12.5 CPU-seconds, docs/benchmarks.md); Node 20 has it off.
  const args = [
    '--no-maglev',
    ...(cfg.baseUrl ? ['--optimize-for-size'] : []),
    PLAYWRIGHT_CLI,
    'test',
    '-c',
    PLAYWRIGHT_CONFIG,
    `--workers=${workers}`,
  ];
  const child = spawn(process.execPath, args, { cwd: packageRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeRedacted(child.stdout, io.out);
  pipeRedacted(child.stderr, io.err);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // No summary: Playwright itself failed (a crash, a broken config), a bug of the run, not of the target.
  // The target stopped the run before its first scenario (the embedded simulator's transport faults): exit 2.
  const stopped = handover.setupError();
  if (!existsSync(summaryPath) && stopped) {
    io.err(`h2h contract: ${stopped}`);
    return EXIT.USAGE;
  }
  if (!existsSync(summaryPath)) {
    io.err(`h2h contract: internal error: the suite did not run to the end (playwright exit ${code}); see above`);
    return EXIT.INTERNAL;
  }
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as ContractSummary;
  const mdPath = join(cfg.reportsDir, 'contract-summary.md');
  if (baseline && cfg.baseline) {
    summary.sinceBaseline = compareToBaseline(cfg.baseline, baseline, summary);
    writeFileSync(summaryPath, `${redact(JSON.stringify(summary, null, 2))}\n`);
    writeFileSync(mdPath, redact(summaryMarkdown(summary)));
  }
  io.out(readFileSync(mdPath, 'utf8'));
  io.out(
    `reports: ${join(cfg.reportsDir, 'html', 'index.html')}, ${join(cfg.reportsDir, 'junit.xml')}, ${summaryPath}`,
  );
  // The run's last line: how to open the HTML report (Playwright's own viewer, a dependency of this package).
  const html = resolve(cfg.reportsDir, 'html');
  const here = relative(process.cwd(), html);
  io.out(`open the HTML report: npx playwright show-report ${shellWord(here.startsWith('..') || !here ? html : here)}`);
  const exit = exitCodeOf(summary.result, cfg.allowInconclusive);
  // A changed reading is a fact about the provider; --fail-on-change GRADE makes a change of that grade or worse
  // fail a run that otherwise passes. A point not seen this time is never a change.
  if (exit === 0 && cfg.failOnChange && changedAtLeast(summary.sinceBaseline?.reading ?? [], cfg.failOnChange)) {
    io.err(
      `h2h contract: the provider reading changed since ${cfg.baseline} (--fail-on-change ${cfg.failOnChange}): ${(summary.sinceBaseline?.reading ?? []).map(changeLine).join('; ')}`,
    );
    return EXIT.VIOLATED;
  }
  return exit;
}

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCatalogue } from '../gate/catalogue/index.js';
import { type ContractConfig, resolveContractConfig } from '../gate/config.js';
import { configEnv } from '../gate/handover.js';
import { httpSend } from '../gate/in-process-runner.js';
import { planRun } from '../gate/plan.js';
import { preflight } from '../gate/preflight.js';
import { type ContractSummary, exitCodeOf } from '../gate/summary.js';
import { newSeed } from '../gate/trx-ids.js';
import { loadApiModel } from '../openapi/load.js';
import { redact, registerPhone, registerSecret } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { TokenBucket } from '../shared/token-bucket.js';
import { checkEmbeddedOptions } from '../simulator/embedded.js';
import { type Command, EXIT, type Io, strFlag } from './command.js';
import { TARGET_OPTIONS, targetFlags } from './target-flags.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The gate's Playwright config, beside this build: dist/gate/playwright.config.js (src/ in development). */
const PLAYWRIGHT_CONFIG = fileURLToPath(
  new URL(`../gate/playwright.config${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
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
  usage:
    'h2h contract [--seed S] [--examples N] [--config FILE] [--base-url URL] [--api-key KEY | --api-key-file FILE] [--allow-writes] [--product CODE] [--kind akrab|circle] [--msisdn N]... [--max-invites N] [--trx-id ID] [--strict] [--timeout 10s] [--rate-limit N/s] [--max-wait 30s] [--settle 5s] [--reports-dir DIR] [--grep RE] [--allow-inconclusive]',
  help: `Runs every clause on GET and POST and every alias (Playwright, src/gate/suites/), and writes reports/: html/, junit.xml,
contract-summary.json and contract-summary.md. Flags win over the environment, which wins over --config.

  --config FILE          YAML: base_url, api_key_file | api_key_env, allow_writes, product, kind, msisdns,
                         max_invites, trx_id, strict, timeout, rate_limit, max_wait, settle, known_statuses,
                         known_http_statuses, deviations: [{clause, reason}]                     (H2H_CONFIG)
  --base-url URL         the target; absent: the embedded simulator on a free loopback port, writes allowed
                                                                                              (H2H_BASE_URL)
  --api-key KEY          the key (H2H_API_KEY); --api-key-file FILE reads it from a file
  --allow-writes         run the invite tests that can succeed (H2H_ALLOW_WRITES=1); default off for a target
  --product CODE         product code for invites (H2H_PRODUCT_CODE)
  --kind K               akrab or circle, the kind of that product (H2H_KIND)
  --msisdn N             a number that may be invited; repeat for more (H2H_TEST_MSISDNS, comma-separated)
  --max-invites N        the most invites this run can have charged (H2H_MAX_INVITES; default 10): every
                         invite a conformant API carries out counts, one it must refuse only if accepted
  --trx-id ID            a known transaction, for lookups and as the used trx_id that guards read-only invites
                         (H2H_KNOWN_TRX_ID; default: one of a past date in history, not of a --msisdn number)
  --strict               drift (fields and statuses openapi.yaml does not name) fails the run (H2H_STRICT=1)
  --canonical-only       only the requests plain OpenAPI can express (canonical names, valid values): for a
                         validation proxy such as Prism between the suite and the target (H2H_CANONICAL_ONLY=1)
  --timeout D            per-request timeout, e.g. 10s or 500ms (H2H_TIMEOUT; default 10s)
  --rate-limit R         the gate's own pace, e.g. 10/s or 600/m (H2H_RATE_LIMIT; default unlimited)
  --max-wait D           total wait for rate limits (429, 503 + Retry-After) per request (H2H_MAX_WAIT; 30s)
  --settle D             how long to look again for what an invite wrote before INV-5/INV-6 fail (H2H_SETTLE; 5s)
  --reports-dir DIR      where reports go (H2H_REPORTS_DIR; default reports)
  --grep RE              run only the scenarios whose title matches, e.g. 'HIS-3' (H2H_GREP)
  --seed S               seed of the generated cases (H2H_SEED; default: a new one, printed); the same seed
                         and target data give the same cases
  --examples N           generated requests per operation in the random phase (H2H_EXAMPLES; default 25)
  --simulator-fault F    embedded simulator only: start it with a fault (mutation self-test)
  --simulator-prefix /P  embedded simulator only: serve under a path prefix
  --simulator-legal R    embedded simulator only: a legal reading, knob=value,... or a profile (h2h mock --help)

Every clause ends in one of four outcomes: held (judged, and it holds); violated (a finding of it, wherever
it was found); not judged by your choice (read-only, --grep, the invite cap, a known deviation); or
inconclusive: the run meant to judge it and could not, and says why and what would let it (no history: allow
writes; the balance ran out: top it up or lower --max-invites; no answer; a rate limit past --max-wait).

Two names of one parameter with different values in one request (api_key and key, q and search, ...) are sent
on purpose: the target may refuse, use the canonical name or use the alias. The summary lists what it did,
never a violation; the answer is judged as the answer to the value it used.

Answers may come compressed: the gate asks for gzip, deflate and br (zstd where Node has it) and decodes them.

  --allow-inconclusive   exit 0 instead of 4 when nothing is violated but some clause could not be judged
                         (H2H_ALLOW_INCONCLUSIVE=1)

Exit: 0 the contract holds, 1 a clause is violated (or drift under --strict), 2 usage, configuration, an
unreachable target or a key refused on GET and POST, 3 internal error, 4 inconclusive.`,
  options: {
    ...TARGET_OPTIONS,
    'trx-id': { type: 'string' },
    strict: { type: 'boolean' },
    'canonical-only': { type: 'boolean' },
    'rate-limit': { type: 'string' },
    'max-wait': { type: 'string' },
    settle: { type: 'string' },
    grep: { type: 'string' },
    seed: { type: 'string' },
    examples: { type: 'string' },
    'simulator-fault': { type: 'string' },
    'simulator-prefix': { type: 'string' },
    'simulator-legal': { type: 'string' },
    'allow-inconclusive': { type: 'boolean' },
  },
  async run(values, _pos, io) {
    const flag = (name: string): string | undefined => strFlag(values, name);
    const cfg = resolveContractConfig({
      ...targetFlags(values),
      trxId: flag('trx-id'),
      strict: values.strict === true ? true : undefined,
      canonicalOnly: values['canonical-only'] === true ? true : undefined,
      rateLimit: flag('rate-limit'),
      maxWait: flag('max-wait'),
      settle: flag('settle'),
      grep: flag('grep'),
      seed: flag('seed'),
      examples: flag('examples'),
      simulatorFault: flag('simulator-fault'),
      simulatorPrefix: flag('simulator-prefix'),
      simulatorLegal: flag('simulator-legal'),
      allowInconclusive: values['allow-inconclusive'] === true ? true : undefined,
    });
    registerSecret(cfg.apiKey);
    for (const m of cfg.msisdns) registerPhone(m);
    cfg.seed ??= newSeed();
    if (!cfg.baseUrl) checkEmbeddedOptions(cfg.simulator);
    const plan = planRun(buildCatalogue(loadApiModel()), { ...cfg, maxInvites: cfg.maxInvites ?? 0 });
    if (plan.entries.length === 0) throw new UsageError(`--grep '${cfg.grep}' matches no scenario`);
    if (cfg.baseUrl) {
      const policy = {
        maxWaitMs: cfg.maxWaitMs,
        ...(cfg.rateLimit ? { throttle: new TokenBucket(cfg.rateLimit, 1) } : {}),
      };
      await preflight(httpSend(cfg.baseUrl, cfg.timeoutMs), policy, cfg.apiKey ?? '', redact(cfg.baseUrl));
    }
    return runPlaywright(cfg, io);
  },
};

async function runPlaywright(cfg: ContractConfig, io: Io): Promise<number> {
  const summaryPath = join(cfg.reportsDir, 'contract-summary.json');
  for (const f of ['contract-summary.json', 'contract-summary.md', 'junit.xml'])
    rmSync(join(cfg.reportsDir, f), { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ...configEnv(cfg), FORCE_COLOR: '0' };
  delete env.H2H_RUN_FILE;
  const args = [PLAYWRIGHT_CLI, 'test', '-c', PLAYWRIGHT_CONFIG];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeRedacted(child.stdout, io.out);
  pipeRedacted(child.stderr, io.err);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (!existsSync(summaryPath)) {
    io.err(`h2h contract: the suite did not run to the end (playwright exit ${code}); see the output above`);
    return EXIT.USAGE;
  }
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as ContractSummary;
  io.out(readFileSync(join(cfg.reportsDir, 'contract-summary.md'), 'utf8'));
  io.out(
    `reports: ${join(cfg.reportsDir, 'html', 'index.html')}, ${join(cfg.reportsDir, 'junit.xml')}, ${summaryPath}`,
  );
  return exitCodeOf(summary.result, cfg.allowInconclusive);
}

import { join } from 'node:path';
import { TransportError } from '../client/transport.js';
import { loadApiModel } from '../openapi/load.js';
import type { Exchange } from '../openapi/types.js';
import { buildCatalogue } from '../plan/catalogue/index.js';
import { type GeneratedCase, nearMissKeys } from '../plan/generators/cases.js';
import { judgeCase } from '../plan/generators/judge-case.js';
import { sendCase } from '../plan/generators/properties.js';
import { redact, registerPhone, registerSecret } from '../redact.js';
import { fillPlaceholders, loadFailures } from '../report/failures.js';
import { findingLines } from '../report/scenario-result.js';
import { CONTRACT_FILE_EXTRAS, type ContractConfig, insecureWarning, resolveContractConfig } from '../run/config.js';
import { targetProblem } from '../run/preflight.js';
import { runDeps } from '../run/run-deps.js';
import { executeScenario } from '../run/run-scenario.js';
import { buildContext, stoppedBy } from '../run/scenario-context.js';
import { defaultValue } from '../shared/settings.js';
import { startEmbedded } from '../simulator/embedded.js';
import { NotSent } from '../target/invite-ledger.js';
import { localPace } from '../target/pace.js';
import { httpSend, RateLimited, type SendPolicy } from '../target/send-policy.js';
import { discover, type TargetData } from '../target/target.js';
import { newRunId, trxFactory } from '../target/trx-ids.js';
import { type Command, EXIT, type Io } from './command.js';

/**
 * Sends saved failing cases to a target again and says FIXED or STILL FAILING for each. An invite that a clause
 * says must be refused goes out with a fresh trx_id (a request that may have been charged is never sent again),
 * within --max-invites, and only with --allow-writes; a guarded one (a used trx_id, a product that cannot
 * exist) goes out as saved.
 */
export const replay: Command = {
  name: 'replay',
  sends: true,
  about: `FILE: saved failures (JSON) of a run of h2h contract; default every file in <reports-dir>/failures/, the
last run's. The target and its settings are given as to h2h contract (flags, H2H_* environment, --config); with
no target, a fresh embedded simulator. The key and the test numbers fill the placeholders of a saved case.`,
  positionals: { usage: '[FILE ...]', range: [0, 1000] },
  fileExtras: CONTRACT_FILE_EXTRAS,
  async run(settings, io) {
    const cfg = resolveContractConfig(settings);
    const insecure = insecureWarning(cfg, 'replay');
    if (insecure) io.err(insecure);
    const files = settings.positionals;
    const saved = loadFailures(files, join(cfg.reportsDir, 'failures'));
    const embedded = cfg.baseUrl ? undefined : await startEmbedded({}, cfg.apiKey);
    try {
      const target = {
        ...cfg,
        baseUrl: cfg.baseUrl ?? embedded?.baseUrl ?? '',
        apiKey: cfg.apiKey ?? embedded?.apiKey ?? '',
        product: cfg.product ?? embedded?.product,
        kind: cfg.kind ?? embedded?.kind,
        msisdns: cfg.msisdns.length ? cfg.msisdns : (embedded?.msisdns ?? []),
      };
      registerSecret(target.apiKey);
      for (const m of target.msisdns) registerPhone(m);
      for (const k of nearMissKeys(target.apiKey)) registerSecret(k.value);
      const api = loadApiModel();
      const raw = httpSend(target.baseUrl, cfg);
      const pace = localPace({ rate: cfg.rateLimit });
      const policy: SendPolicy = { maxWaitMs: cfg.maxWaitMs, pace };
      let data: TargetData;
      try {
        data = await discover(raw, policy, target);
      } catch (err) {
        throw targetProblem(err, redact(target.baseUrl), 'replay read its history') ?? err;
      }
      const newTrxId = trxFactory(newRunId(), 'R', target.trxRule);
      const deps = runDeps(api, target, data, raw, newTrxId, {
        ...cfg,
        maxInvites: cfg.maxInvites ?? embedded?.maxInvites ?? defaultValue('max-invites'),
        pace,
        seed: 0,
      });
      const ctx: Replay = { api, cfg, target, data, deps, newTrxId, catalogue: buildCatalogue(api), io };
      let fixed = 0;
      for (const { path, failure } of saved)
        if (await (failure.case ? replayCase(ctx, path, failure.case) : replayScenario(ctx, path, failure))) fixed++;
      io.out(`h2h replay: ${fixed} of ${saved.length} fixed`);
      return fixed === saved.length ? EXIT.OK : EXIT.VIOLATED;
    } finally {
      await embedded?.sim.close();
    }
  },
};

/** What one replay needs: the API, the config and target, what discovery read, the run's deps, the catalogue. */
interface Replay {
  api: ReturnType<typeof loadApiModel>;
  cfg: ContractConfig;
  target: Parameters<typeof runDeps>[1];
  data: TargetData;
  deps: ReturnType<typeof runDeps>;
  newTrxId: () => string;
  catalogue: ReturnType<typeof buildCatalogue>;
  io: Io;
}

/** A failure of several requests (INV-5 in flight): its scenario runs again, under the same money rules. */
async function replayScenario(
  { cfg, target, deps, catalogue, io }: Replay,
  path: string,
  failure: { scenario: string; seed: number },
): Promise<boolean> {
  const scenario = catalogue.find((x) => x.title === failure.scenario);
  if (!scenario) {
    io.out(`NOT SENT     ${path}: no scenario '${failure.scenario}' in this version`);
    return false;
  }
  if (scenario.invite && !target.allowWrites) {
    io.out(`NOT SENT     ${path}: ${scenario.title}: it needs --allow-writes`);
    return false;
  }
  const result = await executeScenario(
    { scenario, form: 'write' },
    { ...deps, deviations: [], strict: false, generation: { seed: failure.seed, examples: cfg.examples } },
  );
  const said = {
    passed: 'FIXED        ',
    failed: 'STILL FAILING',
    skipped: 'NOT JUDGED   ',
    inconclusive: 'NOT JUDGED   ',
  };
  io.out(`${said[result.status]} ${path}: ${scenario.title}${result.skipReason ? ` (${result.skipReason})` : ''}`);
  for (const line of result.lines) io.out(`  ${line}`);
  return result.status === 'passed';
}

/** One saved case sent again, within the invite ledger, and judged: whether it is fixed. */
async function replayCase(
  { api, cfg, target, data, deps, newTrxId, io }: Replay,
  path: string,
  saved: GeneratedCase,
): Promise<boolean> {
  const c: GeneratedCase = { ...saved, params: fillPlaceholders(saved.params, target) };
  const live =
    c.endpoint === 'invite-member' &&
    c.intent?.expect === 'refusal' &&
    c.intent.clause !== 'used-trx' &&
    c.intent.clause !== 'unknown-product';
  if (live || c.params.trx_id === '{{fresh-trx}}') c.params = { ...c.params, trx_id: newTrxId() };
  if (c.endpoint === 'invite-member' && c.params.trx_id === '' && data.knownTrxId) c.params.trx_id = data.knownTrxId;
  if (live && !cfg.allowWrites && cfg.baseUrl) {
    io.out(`NOT SENT     ${path}: ${c.label}: an invite that could be charged needs --allow-writes`);
    return false;
  }
  // The gate's one invite sender (ScenarioContext.invite): admitted by the ledger, settled by what its answer says
  // (only a 429 says an invite was not carried out), an accepted repeat of a used trx_id judged as the gate does.
  const { ctx } = buildContext(`replay ${path}`, 'write', deps);
  let ex: Exchange;
  try {
    ex = await sendCase(ctx, c);
  } catch (err) {
    // Not sent (the cap, writes not allowed), no answer (the target's doing), or nothing to judge by (the
    // balance ran out): this case is not fixed, and the others are still sent.
    const stopped = stoppedBy(err);
    if (!stopped) throw err;
    if (err instanceof NotSent) io.out(`NOT SENT     ${path}: ${c.label}: ${err.message}`);
    else if (err instanceof TransportError || err instanceof RateLimited)
      io.out(
        `NO ANSWER    ${path}: ${c.label}: ${redact(err instanceof TransportError ? `${err.reason}: ${err.message}` : err.message)}`,
      );
    else io.out(`NOT JUDGED   ${path}: ${c.label}: ${redact(stopped.reason)}`);
    return false;
  }
  const { findings } = judgeCase(api, c, ex);
  if (findings.length === 0) {
    io.out(`FIXED        ${path}: ${c.label}`);
    return true;
  }
  io.out(`STILL FAILING ${path}: ${c.label}`);
  for (const line of findingLines(findings)) io.out(`  ${redact(line)}`);
  return false;
}

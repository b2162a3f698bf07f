import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiModel } from '../src/openapi/load.js';
import { buildCatalogue } from '../src/plan/catalogue/index.js';
import { nearMissKeys } from '../src/plan/generators/cases.js';
import { planRun } from '../src/plan/plan.js';
import { maskPhone, redact, registerPhone, registerSecret } from '../src/redact.js';
import { type ContractConfig, configFromEnv } from '../src/run/config.js';
import {
  type Discovery,
  type EffectiveConfig,
  handKeyToWorkers,
  readDiscovery,
  writeRunFile,
  writeSetupError,
} from '../src/run/handover.js';
import { preflight, targetProblem } from '../src/run/preflight.js';
import { concurrencyOf, sharedPace } from '../src/run/workers.js';
import { defaultValue } from '../src/shared/settings.js';
import { startEmbedded } from '../src/simulator/embedded.js';
import { parseReading, rateLimitOf } from '../src/simulator/legal.js';
import { localPace, servePace } from '../src/target/pace.js';
import { httpSend } from '../src/target/send-policy.js';
import { discover } from '../src/target/target.js';
import { newRunId, newSeed } from '../src/target/trx-ids.js';

/** The run's target: the given one, or the embedded simulator started here with its key, product and numbers. */
async function targetOf(
  given: Omit<ContractConfig, 'apiKey'> & { seed: number },
  givenKey: string | undefined,
): Promise<{ cfg: EffectiveConfig; apiKey: string; close: () => Promise<void> }> {
  if (given.baseUrl)
    return {
      cfg: { ...given, baseUrl: given.baseUrl, maxInvites: given.maxInvites ?? defaultValue('max-invites') },
      apiKey: givenKey ?? '',
      close: async () => {},
    };
  const e = await startEmbedded(given.simulator, givenKey);
  const extras = [
    given.simulator.fault && `fault ${given.simulator.fault}`,
    given.simulator.legal && `reading ${given.simulator.legal}`,
  ];
  console.log(
    `h2h contract: embedded simulator at ${e.baseUrl}${extras.some(Boolean) ? ` with ${extras.filter(Boolean).join(', ')}` : ''}`,
  );
  return {
    cfg: {
      ...given,
      baseUrl: e.baseUrl,
      product: given.product ?? e.product,
      kind: given.kind ?? e.kind,
      msisdns: given.msisdns.length ? given.msisdns : e.msisdns,
      maxInvites: given.maxInvites ?? e.maxInvites,
    },
    apiKey: e.apiKey,
    close: () => e.sim.close(),
  };
}

/** What the run can spend, or that it is read-only, and what an account without history means for it. */
function printSpend(
  cfg: EffectiveConfig,
  plan: ReturnType<typeof planRun>,
  saldo: unknown,
  data: Discovery['data'],
): void {
  const skippedByCap = plan.entries.filter((e) => e.skip?.kind === 'invite-cap').length;
  if (cfg.allowWrites) {
    console.log(
      `h2h contract: spend: at most ${cfg.maxInvites} invite(s) can be charged in this run (--max-invites): ` +
        `${plan.writes} that a conformant API carries out (product ${cfg.product ?? '(none)'}, numbers ${cfg.msisdns.map(maskPhone).join(', ')}), ` +
        `the rest only if it accepts invites it must refuse${typeof saldo === 'number' ? `; balance now ${saldo}` : ''}` +
        `${skippedByCap ? `; ${skippedByCap} writing scenario(s) over the cap will be skipped` : ''}`,
    );
  } else {
    console.log(
      'h2h contract: read-only run: no invite request that could succeed will be sent (--allow-writes to change)',
    );
  }
  if (!data.record)
    console.log(
      cfg.allowWrites
        ? 'h2h contract: the account has no history: what takes its data from it runs after the run’s own invites'
        : 'h2h contract: the account has no history: what takes its data from it is inconclusive (allow writes, or use an account with history)',
    );
}

/**
 * Once per run (a composition root, like the CLI): start the embedded simulator when no base URL is given,
 * check the target and the key, read the target's own history, print what the run can spend, and write the
 * run file that everything after it plans from.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // Fault injection for the toolkit's own tests: the suite itself breaks (h2h contract exits 3, not 2).
  if (process.env.H2H_INJECT === 'playwright-crash') throw new Error('injected crash of the suite');
  const { apiKey: givenKey, ...configured } = configFromEnv();
  const given = { ...configured, seed: configured.seed ?? newSeed() };
  const target = await targetOf(given, givenKey);
  const { cfg, apiKey } = target;
  let close = target.close;
  registerSecret(apiKey);
  // However the key was given (a flag of h2h contract, H2H_API_KEY, a key file, a config file's api_key_file or
  // api_key_env, or the embedded simulator's own), every worker sends the one resolved here (handover.ts).
  handKeyToWorkers(apiKey);
  for (const m of cfg.msisdns) registerPhone(m);
  for (const k of nearMissKeys(apiKey)) registerSecret(k.value);
  // A run's failures are its own: `h2h replay` reads the last run's.
  rmSync(join(cfg.reportsDir, 'failures'), { recursive: true, force: true });
  const targetLabel = given.baseUrl ? redact(given.baseUrl) : '(embedded simulator)';
  const raw = httpSend(cfg.baseUrl, cfg);
  // The run's one pace: the requests here, then every worker's, which ask it for their turn (pace.ts).
  const pace = localPace({ concurrency: concurrencyOf(cfg), rate: cfg.rateLimit });
  const policy = { maxWaitMs: cfg.maxWaitMs, pace };
  try {
    // What `h2h contract` already learned of a target (handover.ts); else asked here (the embedded simulator,
    // `npx playwright test`). A target that stops the run here is the user's problem, written for h2h contract.
    const handed = given.baseUrl ? readDiscovery() : undefined;
    let found: Discovery;
    try {
      found = handed ?? {
        preflight: await preflight(raw, policy, apiKey, targetLabel),
        data: await discover(raw, policy, { ...cfg, apiKey }),
      };
    } catch (err) {
      const problem = targetProblem(err, targetLabel, 'preflight and discovery read it');
      if (problem) writeSetupError(problem.message);
      throw problem ?? err;
    }
    const { saldo, refusedOn } = found.preflight;
    const data = found.data;
    if (refusedOn.length)
      console.log(
        `h2h contract: the key was refused on ${refusedOn.join(' and ')} only: the run goes on, and ENV-2 judges the difference`,
      );
    console.log(
      `h2h contract: seed ${cfg.seed} (--seed ${cfg.seed} generates the same cases again), ${cfg.examples} examples`,
    );
    const legal = given.simulator.legal;
    const served = sharedPace(given, legal !== undefined && rateLimitOf(parseReading(legal)) !== undefined)
      ? await servePace(pace)
      : undefined;
    const stop = close;
    close = async () => {
      await served?.close();
      await stop();
    };
    const { remove } = writeRunFile({
      config: cfg,
      targetLabel,
      data,
      runId: newRunId(),
      ...(served ? { pacePort: served.port } : {}),
    });
    printSpend(cfg, planRun(buildCatalogue(loadApiModel()), cfg), saldo, data);
    return async () => {
      remove();
      await close();
    };
  } catch (err) {
    await close();
    throw err;
  }
}

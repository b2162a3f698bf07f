import { maskPhone, redact, registerSecret } from '../redact.js';
import { TokenBucket } from '../shared/token-bucket.js';
import { parseReading } from '../simulator/legal.js';
import { startSimulator } from '../simulator/server.js';
import { loadSpec } from '../spec/load.js';
import { buildCatalogue } from './catalogue/index.js';
import { configFromEnv } from './config.js';
import { writeRunFile } from './handover.js';
import { discover, httpSend } from './in-process.js';
import { planRun } from './plan.js';
import { preflight } from './preflight.js';
import { newRunId } from './run-ids.js';

/**
 * Once per run: start the embedded simulator when no base URL is given, check the target and the key, read the
 * target's own history, print what the run can spend, and write the run file for the workers.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const cfg = configFromEnv();
  let close = async (): Promise<void> => {};
  let baseUrl = cfg.baseUrl ?? '';
  let apiKey = cfg.apiKey ?? '';
  if (!cfg.baseUrl) {
    const sim = await startSimulator({
      ...(cfg.apiKey ? { apiKey: cfg.apiKey } : {}),
      fault: cfg.simulator.fault ? { name: cfg.simulator.fault } : null,
      prefix: cfg.simulator.prefix ?? '',
      ...(cfg.simulator.legal ? { reading: parseReading(cfg.simulator.legal) } : {}),
    });
    close = () => sim.close();
    baseUrl = sim.url;
    apiKey = sim.apiKey;
    process.env.H2H_API_KEY = apiKey;
    const extras = [
      cfg.simulator.fault && `fault ${cfg.simulator.fault}`,
      cfg.simulator.legal && `reading ${cfg.simulator.legal}`,
    ];
    console.log(
      `h2h contract: embedded simulator at ${sim.url}${extras.some(Boolean) ? ` with ${extras.filter(Boolean).join(', ')}` : ''}`,
    );
  }
  registerSecret(apiKey);
  const targetLabel = cfg.baseUrl ? redact(cfg.baseUrl) : '(embedded simulator)';
  const raw = httpSend(baseUrl, cfg.timeoutMs);
  const policy = {
    maxWaitMs: cfg.maxWaitMs,
    ...(cfg.rateLimit ? { throttle: new TokenBucket(cfg.rateLimit, 1) } : {}),
  };
  try {
    const { saldo } = await preflight(raw, policy, apiKey, targetLabel);
    const data = await discover(raw, policy, { ...cfg, apiKey });
    const file = writeRunFile({ baseUrl, targetLabel, data, runId: newRunId() });
    const remove = file.remove;
    const plan = planRun(buildCatalogue(loadSpec()), {
      allowWrites: cfg.allowWrites,
      maxInvites: cfg.maxInvites,
      canonicalOnly: cfg.canonicalOnly,
      ...(cfg.grep ? { grep: cfg.grep } : {}),
    });
    const skippedByCap = plan.entries.filter((e) => e.skip?.startsWith('over the invite cap')).length;
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
      console.log('h2h contract: the account has no history: scenarios that take their data from it are skipped');
    return async () => {
      remove();
      await close();
    };
  } catch (err) {
    await close();
    throw err;
  }
}

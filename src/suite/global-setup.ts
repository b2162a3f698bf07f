import { callApi } from '../client/client.js';
import { maskPhone, registerSecret } from '../redact.js';
import { startSimulator } from '../simulator/server.js';
import { loadSpec } from '../spec/load.js';
import { configEnv, configFromEnv } from './config.js';
import { httpTarget } from './run.js';
import { buildScenarios, newRunId, planWrites } from './scenarios.js';
import { simulatorSettings } from './sweep.js';
import { discover, type TargetData } from './target.js';

/**
 * Once per run: start the embedded simulator when no base URL is given, read the target's own history, plan
 * the invites, print the planned spend. Workers get all of it through the environment.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  let cfg = configFromEnv();
  let close = async (): Promise<void> => {};
  if (!cfg.baseUrl) {
    const sim = await startSimulator({
      ...(cfg.apiKey ? { apiKey: cfg.apiKey } : {}),
      fault: cfg.simulator.fault ? { name: cfg.simulator.fault } : null,
      prefix: cfg.simulator.prefix ?? '',
      variant: cfg.simulator.variant ?? 'reference',
    });
    close = () => sim.close();
    const settings = simulatorSettings(sim);
    cfg = { ...cfg, ...settings, msisdns: [...settings.msisdns] };
    console.log(
      `h2h contract: embedded simulator at ${sim.url}${cfg.simulator.fault ? ` with fault ${cfg.simulator.fault}` : ''}`,
    );
  }
  registerSecret(cfg.apiKey);
  Object.assign(process.env, configEnv(cfg), { H2H_BASE_URL: cfg.baseUrl, H2H_RUN_ID: newRunId() });

  const target = httpTarget({ ...cfg, baseUrl: cfg.baseUrl ?? '', apiKey: cfg.apiKey ?? '', timeoutMs: cfg.timeoutMs });
  const probe = await callApi({
    baseUrl: cfg.baseUrl ?? '',
    endpoint: 'saldo-user',
    method: 'POST',
    params: { api_key: cfg.apiKey },
    timeoutMs: cfg.timeoutMs,
  });
  if (probe.error && (probe.error.reason === 'connect' || probe.error.reason === 'timeout')) {
    throw new Error(`target unreachable: ${probe.error.message}`);
  }
  const data: TargetData = probe.exchange ? await discover(target).catch(() => ({ seen: 0 })) : { seen: 0 };
  process.env.H2H_TARGET_DATA = JSON.stringify(data);

  const scenarios = buildScenarios(loadSpec(), { allowWrites: cfg.allowWrites });
  const plan = planWrites(scenarios, cfg.maxInvites);
  const saldo = (probe.exchange?.body as { saldo?: unknown } | undefined)?.saldo;
  if (cfg.allowWrites) {
    console.log(
      `h2h contract: planned spend: up to ${plan.planned} invite request(s) that could succeed, product ${cfg.product ?? '(none)'}, ` +
        `numbers ${cfg.msisdns.map(maskPhone).join(', ')}, cap ${cfg.maxInvites}${typeof saldo === 'number' ? `, balance now ${saldo}` : ''}` +
        `${plan.over.size ? `; ${plan.over.size} writing test(s) over the cap will be skipped` : ''}`,
    );
  } else {
    console.log(
      'h2h contract: read-only run: no invite request that could succeed will be sent (--allow-writes to change)',
    );
  }
  if (!data.record)
    console.log('h2h contract: the account has no history: tests that take their data from it are skipped');
  return close;
}

/**
 * Requests in flight against the target: the gate's Playwright workers, each sending one request at a time, so
 * the pace is the provider's allowance and not the runner's CPU count. Against a remote provider that answers in
 * hundreds of milliseconds the workers mostly wait: 4 by default. Against the embedded simulator, whose answers
 * take no time, the cores are the limit and more workers only cost start-up: 2.
 */
export const REMOTE_CONCURRENCY = 4;
export const EMBEDDED_CONCURRENCY = 2;

/** The run's concurrency: `--concurrency`, else the default for where it runs. Each worker takes its share of `--rate-limit`. */
export function concurrencyOf(cfg: { concurrency?: number; baseUrl?: string }): number {
  return cfg.concurrency ?? (cfg.baseUrl ? REMOTE_CONCURRENCY : EMBEDDED_CONCURRENCY);
}

/**
 * Requests the invite worker keeps in flight for its refusal groups (the invite file runs in order in one worker,
 * and at 8 or more it would be the run's long pole): a quarter of the concurrency from 8 on, else 1. The read
 * workers are then limited to the rest, so the bound holds.
 */
export function invitePool(concurrency: number): number {
  return concurrency >= 8 ? Math.floor(concurrency / 4) : 1;
}

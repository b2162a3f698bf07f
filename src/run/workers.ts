/**
 * Requests in flight against the target (`--concurrency`): the run's pace (pace.ts) holds every request of every
 * worker to it, so the pace is the provider's allowance and not the runner's CPU count. Against a remote provider
 * that answers in hundreds of milliseconds the requests mostly wait: 4 by default. Against the embedded simulator,
 * whose answers take no time, the cores are the limit and more only costs: 2, each worker's own unless the run
 * bounds it (sharedPace).
 */
export const REMOTE_CONCURRENCY = 4;
export const EMBEDDED_CONCURRENCY = 2;

/**
 * Playwright workers at most. Within a worker the scenarios of a test run side by side (up to the concurrency)
 * unless they write, so a few processes fill the slots; more would only cost start-up on a small runner.
 */
export const MAX_WORKERS = 4;

/**
 * Whether every worker's requests take their turn at the run's one pace, served by the global setup (pace.ts):
 * against a provider always (the bound and the rate are its allowance, and the invites' turn comes first across
 * workers); against the embedded simulator only when the run bounds or rates it (`--concurrency`, `--rate-limit`,
 * a reading that limits the rate). Otherwise there is no provider to spare: each worker's lanes hold its own
 * requests, and none waits for a turn from another process, the one that also serves the simulator (0.5 to 1 s of
 * a 9 s embedded run, docs/benchmarks.md).
 */
export function sharedPace(
  cfg: { baseUrl?: string; concurrencyGiven?: true; rateLimit?: number },
  simulatorLimitsRate: boolean,
): boolean {
  return Boolean(cfg.baseUrl) || cfg.concurrencyGiven === true || cfg.rateLimit !== undefined || simulatorLimitsRate;
}

/** The run's concurrency: `--concurrency`, else the default for where it runs. */
export function concurrencyOf(cfg: { concurrency?: number; baseUrl?: string }): number {
  return cfg.concurrency ?? (cfg.baseUrl ? REMOTE_CONCURRENCY : EMBEDDED_CONCURRENCY);
}

/** The Playwright workers of a run: one for the invite file (it runs in order), the rest for the reads. */
export function workersOf(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, MAX_WORKERS));
}

/**
 * A small plan (a `--grep` run, most often) runs in one worker: a second worker's start (loading Playwright and
 * the toolkit: about one and a half CPU-seconds) costs more than the scenarios it would take. When it has both
 * invites and reads, in two: the invites run in order in a worker of their own, the reads beside them in one.
 */
export const ONE_WORKER_PLAN = 40;

/** The Playwright workers for a planned run (the areas of its scenarios) at this concurrency. */
export function workersFor(areas: readonly string[], concurrency: number): number {
  if (areas.length > ONE_WORKER_PLAN) return workersOf(concurrency);
  const both = areas.includes('invite') && areas.some((a) => a !== 'invite');
  return both ? workersOf(Math.min(2, concurrency)) : 1;
}

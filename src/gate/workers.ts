/** Playwright workers of the gate: the config's `workers`, and the share of `--rate-limit` each one takes. */
export const WORKERS = 2;

import { UsageError } from './config-file.js';

/** Parses `500ms`, `2s` or `2` (seconds) into milliseconds; 0 only when `zero` allows it. */
export function parseDuration(raw: string, what: string, opts: { zero?: boolean } = {}): number {
  const m = /^(\d+)(ms|s)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`${what} must be a duration like 500ms or 2s, got '${raw}'`);
  const n = Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
  if (n <= 0 && !opts.zero) throw new UsageError(`${what} must be more than 0, got '${raw}'`);
  return n;
}

/** An environment variable's boolean: 1/true/yes, 0/false/no, or undefined when unset or empty. */
export function parseBoolean(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (['1', 'true', 'yes'].includes(v.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(v.toLowerCase())) return false;
  throw new UsageError(`expected 1/0/true/false, got '${v}'`);
}

/** Parses a rate such as `10/s`, `10` (per second) or `600/m`; undefined for `none`. */
export function parseRate(raw: string): { perSecond: number } | undefined | 'invalid' {
  const text = raw.trim().toLowerCase();
  if (text === 'none' || text === 'off' || text === '0') return undefined;
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(text);
  if (!m) return 'invalid';
  const n = Number(m[1]) / (m[2] === 'm' ? 60 : 1);
  return n > 0 ? { perSecond: n } : 'invalid';
}

/**
 * A base URL with `user:password@` is refused: the API takes its key as a parameter, and a password in a URL
 * would reach every message and report that names the target. The message shows the URL without it.
 */
export function refuseUserinfo(url: string, what: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return; // not a URL: the caller's own check says so
  }
  if (u.username || u.password)
    throw new UsageError(
      `${what} must not carry a user name or password (user:password@): the API takes its key as a parameter; got '${u.protocol}//***@${u.host}${u.pathname === '/' ? '' : u.pathname}'`,
    );
}

import { getProxyForUrl } from 'proxy-from-env';

/**
 * The forward proxy a request goes through: the one named for its target (the probe's per-target `proxy_url`),
 * else the environment's as curl reads it (`HTTPS_PROXY` for https:, `HTTP_PROXY` for http:, `ALL_PROXY` after
 * them, lower case first; proxy-from-env), unless `NO_PROXY` lists the host. Only `NO_PROXY` decides what
 * bypasses the proxy, loopback included. HTTPS goes through a CONNECT tunnel; plain HTTP is sent to the proxy in
 * absolute form (a proxy logs those URLs, and a GET's carries the key). Credentials in the proxy URL are sent as
 * `Proxy-Authorization: Basic` and never shown: `label` hides the password.
 */
export interface ForwardProxy {
  host: string;
  port: number;
  /** The proxy as it may be shown: `http://user:***@host:port`. */
  label: string;
  /** The Proxy-Authorization header value, when the URL has credentials. */
  authorization?: string;
}

/** Why a proxy URL cannot be used, or undefined when it can. */
export function proxyProblem(value: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return `'${labelOf(value)}' is not a URL`;
  }
  if (u.protocol !== 'http:')
    return `${labelOf(value)}: only http:// proxies are supported (HTTPS targets go through them by CONNECT)`;
  if (!u.hostname) return `${labelOf(value)}: no host`;
  return undefined;
}

/** A proxy URL with its password hidden; a value that is not a URL loses everything after `:` before an `@`. */
export function labelOf(value: string): string {
  try {
    const u = new URL(value.includes('://') ? value : `http://${value}`);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return value.replace(/:[^@/]*@/, ':***@');
  }
}

/** The proxy a request to `target` goes through, or undefined for a direct connection. */
export function proxyFor(target: URL, explicit?: string): ForwardProxy | undefined {
  const value = explicit ?? getProxyForUrl(target.toString());
  if (!value) return undefined;
  const u = new URL(value.includes('://') ? value : `http://${value}`);
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port) || 80,
    label: labelOf(value),
    ...(user || password ? { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } : {}),
  };
}

/** The proxy settings of the environment, each with its variable: for checks at start and for redaction. */
export function environmentProxies(env: NodeJS.ProcessEnv = process.env): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const base of ['https_proxy', 'http_proxy', 'all_proxy'])
    for (const name of [base, base.toUpperCase()]) {
      const value = env[name];
      if (value) out.push({ name, value });
    }
  return out;
}

/** The secrets a proxy URL holds (its password, and the Basic credentials), for the redaction module. */
export function proxySecrets(value: string): string[] {
  try {
    const u = new URL(value.includes('://') ? value : `http://${value}`);
    if (!u.password) return [];
    const password = decodeURIComponent(u.password);
    return [password, Buffer.from(`${decodeURIComponent(u.username)}:${password}`).toString('base64')];
  } catch {
    return [];
  }
}

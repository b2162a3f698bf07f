// proxy-from-env ships no types.
declare module 'proxy-from-env' {
  /** The proxy URL the environment names for `url`, or '' for none (NO_PROXY honoured). */
  export function getProxyForUrl(url: string | URL): string;
}

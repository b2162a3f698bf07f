import type { APIRequestContext } from '@playwright/test';
import { endpointUrl } from '../client/client.js';
import { redact } from '../redact.js';
import type { Endpoint, Exchange, Method, Params } from '../spec/types.js';
import type { ContractConfig } from './config.js';
import { type Target, TransportError } from './target.js';

/** What kind of transport failure a Playwright fetch error is. */
function transportReason(message: string): string {
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH/.test(message)) return 'connect';
  if (/Timeout .*exceeded|ETIMEDOUT/i.test(message)) return 'timeout';
  if (/ECONNRESET|socket hang up|EPIPE/i.test(message)) return 'reset';
  return 'transport';
}

/**
 * A Target on Playwright's `request` fixture. A transport error (reset, timeout) is retried once and noted as
 * flaky; an answer, whatever it says, is never retried. Errors are redacted: Playwright's own message holds the
 * URL, and on GET the URL holds the key.
 */
export function playwrightTarget(
  request: APIRequestContext,
  cfg: ContractConfig,
  onFlaky: (note: string) => void,
): Target {
  const baseUrl = cfg.baseUrl ?? '';
  const once = async (endpoint: Endpoint, method: Method, params: Params): Promise<Exchange> => {
    const url = endpointUrl(baseUrl, endpoint, method, params);
    // Relative to use.baseURL (with its trailing slash), so a path prefix of the base URL is kept. The query
    // goes in `params`, not in the URL: Playwright shows the URL it was given as the step's subtitle in its
    // HTML report, and on GET the query holds the key and the member's number.
    const relative = `api/${endpoint}`;
    const query = new URL(url).searchParams;
    const started = performance.now();
    const res = await request.fetch(relative, {
      method,
      ...(method === 'GET' ? { params: query } : { data: params }),
      maxRedirects: 0,
      timeout: cfg.timeoutMs,
      failOnStatusCode: false,
    });
    const bodyText = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    return {
      endpoint,
      method,
      params,
      url,
      httpStatus: res.status(),
      contentType: res.headers()['content-type'] ?? '',
      bodyText,
      body,
      durationMs: performance.now() - started,
    };
  };
  return {
    apiKey: cfg.apiKey ?? '',
    allowWrites: cfg.allowWrites,
    ...(cfg.product ? { product: cfg.product } : {}),
    ...(cfg.kind ? { kind: cfg.kind } : {}),
    msisdns: cfg.msisdns,
    ...(cfg.knownTrxId ? { knownTrxId: cfg.knownTrxId } : {}),
    async send(endpoint, method, params) {
      let first: string;
      try {
        return await once(endpoint, method, params);
      } catch (err) {
        first = redact((err as Error).message.split('\n')[0] ?? '');
      }
      try {
        const ex = await once(endpoint, method, params);
        onFlaky(`${method} ${endpoint}: ${first}; passed on retry`);
        return ex;
      } catch (err) {
        const msg = redact((err as Error).message.split('\n')[0] ?? '');
        throw new TransportError(`${method} ${endpoint}: ${msg} (after one retry)`, transportReason(msg));
      }
    },
  };
}

import type { APIRequestContext } from '@playwright/test';
import { endpointUrl } from '../client/client.js';
import { reasonOfMessage, TransportError } from '../client/transport.js';
import { redact } from '../redact.js';
import type { RawSend } from './send-policy.js';

/**
 * A RawSend on Playwright's `request` fixture. Errors are redacted and classified into the one transport
 * vocabulary: Playwright's own message holds the URL, and on GET the URL holds the key.
 */
export function playwrightSend(request: APIRequestContext, baseUrl: string, timeoutMs: number): RawSend {
  return async (endpoint, method, params) => {
    const url = endpointUrl(baseUrl, endpoint, method, params);
    // The query goes in `params`, not in the URL: Playwright shows the URL it was given as the step's subtitle
    // in its HTML report, and on GET the query holds the key and the member's number.
    const bare = new URL(url);
    const query = new URLSearchParams(bare.search);
    bare.search = '';
    const started = performance.now();
    let res: Awaited<ReturnType<APIRequestContext['fetch']>>;
    try {
      res = await request.fetch(bare.toString(), {
        method,
        ...(method === 'GET' ? { params: query } : { data: params }),
        maxRedirects: 0,
        timeout: timeoutMs,
        failOnStatusCode: false,
      });
    } catch (err) {
      const message = redact((err as Error).message.split('\n')[0] ?? '');
      throw new TransportError(`${method} ${endpoint}: ${message}`, reasonOfMessage(message));
    }
    let bodyText: string;
    try {
      bodyText = await res.text();
    } catch (err) {
      throw new TransportError(`${method} ${endpoint}: body: ${redact((err as Error).message)}`, 'reset');
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    const headers = res.headers();
    return {
      endpoint,
      method,
      params,
      url,
      httpStatus: res.status(),
      contentType: headers['content-type'] ?? '',
      headers,
      bodyText,
      body,
      durationMs: performance.now() - started,
    };
  };
}

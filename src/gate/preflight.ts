import { proxyFor } from '../client/proxy.js';
import { TransportError } from '../client/transport.js';
import { bodyOf } from '../openapi/exchange.js';
import { type Exchange, METHODS, type Method } from '../openapi/types.js';
import { redact } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { RateLimited, type RawSend, type SendPolicy, sendUnderPolicy } from './send-policy.js';

/** What preflight learned: the balance, and the methods on which the key was refused (ENV-2 will say more). */
export interface Preflight {
  saldo?: number;
  refusedOn: Method[];
}

/**
 * One saldo-user call by each method before anything else. A target that answers neither, or refuses the key
 * on both, is a configuration error (exit 2) with one line that says so, not a hundred failures. A key accepted
 * by one method and refused by the other is not the user's mistake but the target's: the run goes on, and ENV-2
 * reports it. An answer that is not the envelope goes on too: the clauses will say what is wrong with it.
 */
export async function preflight(
  raw: RawSend,
  policy: SendPolicy,
  apiKey: string,
  targetLabel: string,
): Promise<Preflight> {
  const answers: Partial<Record<Method, Exchange | Error>> = {};
  for (const method of METHODS) {
    try {
      answers[method] = await sendUnderPolicy(raw, 'saldo-user', method, { api_key: apiKey }, policy, {
        flaky: [],
        waits: [],
      });
    } catch (err) {
      if (!(err instanceof TransportError) && !(err instanceof RateLimited)) throw err;
      answers[method] = err;
    }
  }
  const failures = METHODS.map((m) => answers[m]).filter((a): a is Error => a instanceof Error);
  if (failures.length === METHODS.length) {
    const err = failures[0] as Error;
    throw new UsageError(
      redact(
        err instanceof RateLimited
          ? `target ${targetLabel} keeps answering with rate limits: ${err.message}`
          : `target unreachable: ${targetLabel}: ${err.message}`,
      ),
    );
  }
  const exchanges = METHODS.map((m) => answers[m]).filter((a): a is Exchange => !!a && !(a instanceof Error));
  // Through a proxy, an answer with no JSON at all to both methods is most likely the proxy's (tinyproxy refuses
  // wrong credentials with 401 text/html), not the API's: a configuration error that names the proxy.
  const proxy = proxyFor(new URL(exchanges[0]?.url ?? 'http://invalid'));
  if (
    proxy &&
    exchanges.length === METHODS.length &&
    exchanges.every((ex) => ex.body === undefined && ex.httpStatus >= 400)
  )
    throw new UsageError(
      redact(
        `through proxy ${proxy.label}, ${targetLabel} answered saldo-user with HTTP ${exchanges.map((ex) => `${ex.httpStatus} ${ex.contentType || 'no content type'}`).join(' and ')}, not JSON: the proxy refused (check its credentials in HTTPS_PROXY/HTTP_PROXY, or NO_PROXY), or the target is not this API`,
      ),
    );
  const refusedOn = exchanges.filter((ex) => bodyOf(ex)?.ok === false).map((ex) => ex.method);
  if (refusedOn.length === METHODS.length) {
    const ex = exchanges[0] as Exchange;
    throw new UsageError(
      redact(
        `the API key was refused by ${targetLabel} on GET and POST (saldo-user answered HTTP ${ex.httpStatus}, status ${String(bodyOf(ex)?.status)}): check --api-key, --api-key-file or H2H_API_KEY`,
      ),
    );
  }
  const saldo = exchanges.map((ex) => bodyOf(ex)).find((b) => b?.ok === true && typeof b.saldo === 'number')?.saldo;
  return { ...(typeof saldo === 'number' ? { saldo } : {}), refusedOn };
}

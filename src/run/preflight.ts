import { proxyFor } from '../client/proxy.js';
import { TransportError } from '../client/transport.js';
import { bodyOf, calledUrl } from '../openapi/exchange.js';
import { type Endpoint, type Exchange, METHODS, type Method } from '../openapi/types.js';
import { redact } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { RateLimited, type RawSend, type SendPolicy, sendUnderPolicy } from '../target/send-policy.js';

/** What preflight learned: the balance, and the methods on which the key was refused (ENV-2 will say more). */
export interface Preflight {
  saldo?: number;
  refusedOn: Method[];
}

/**
 * One saldo-user call by each method before anything else. A target that answers neither, or refuses the key
 * on both, is a configuration error (exit 2) with one line that says so, not a hundred failures. A key accepted
 * by one method and refused by the other is not the user's mistake but the target's: the run goes on, and ENV-2
 * reports it. Answers that are not the API's envelope on both methods (an HTML page, a 404 without JSON), or
 * refusals alike to the refusal of a path no API has, mean the base URL is wrong: exit 2 naming the URL called,
 * never "key refused". An answer that is not the envelope on one method only goes on: ENV-1 will say more.
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
  // Every method either answered or got no answer at all (a server that answers an error page before reading a
  // POST body and closes often resets that POST): what answered speaks for the target. A rate limit is no answer
  // of that kind: it may be the API's own.
  const lost = METHODS.filter((m) => answers[m] instanceof TransportError);
  const lostNote = lost.map((m) => ` (${m}: no answer, ${(answers[m] as TransportError).reason})`).join('');
  const allSpoke = exchanges.length + lost.length === METHODS.length;
  // Through a proxy, an answer with no JSON at all is most likely the proxy's (tinyproxy refuses wrong
  // credentials with 401 text/html), not the API's: a configuration error that names the proxy.
  const proxy = proxyFor(new URL(exchanges[0]?.url ?? 'http://invalid'));
  if (proxy && allSpoke && exchanges.every((ex) => ex.body === undefined && ex.httpStatus >= 400))
    throw new UsageError(
      redact(
        `through proxy ${proxy.label}, ${targetLabel} answered saldo-user with HTTP ${exchanges.map((ex) => `${ex.httpStatus} ${ex.contentType || 'no content type'}`).join(' and ')}${lostNote}, not JSON: the proxy refused (check its credentials in HTTPS_PROXY/HTTP_PROXY, or NO_PROXY), or the target is not this API`,
      ),
    );
  const called = calledUrl(exchanges[0] as Exchange);
  // Nothing of the API's envelope came back (an HTML page, a 404 without JSON, no JSON at all): the base URL
  // points at some other web server, or at the wrong path of this one.
  if (allSpoke && exchanges.every((ex) => typeof bodyOf(ex)?.ok !== 'boolean'))
    throw new UsageError(
      redact(
        `this does not look like the H2H API: saldo-user answered ${answered(exchanges)} on ${exchanges.map((ex) => ex.method).join(' and ')}${lostNote}, not the API's JSON envelope ({"ok": ..., "status": ...}); check --base-url (called ${called})`,
      ),
    );
  const refusedOn = exchanges.filter((ex) => bodyOf(ex)?.ok === false).map((ex) => ex.method);
  if (refusedOn.length === METHODS.length) {
    const ex = exchanges[0] as Exchange;
    // A refusal the way a path that does not exist is refused is no refusal of the key: the URL is wrong.
    const unknown = await nowhere(raw, policy, apiKey);
    if (exchanges.every((x) => x.httpStatus === 404) || (unknown && sameRefusal(ex, unknown)))
      throw new UsageError(
        redact(
          `no H2H API at ${targetLabel}: saldo-user answered ${answered(exchanges)} on GET and POST, as a path that does not exist is answered; check --base-url (called ${called}): it is the part before /api/`,
        ),
      );
    throw new UsageError(
      redact(
        `the API key was refused by ${targetLabel} on GET and POST (saldo-user answered HTTP ${ex.httpStatus}, status ${String(bodyOf(ex)?.status)}; called ${called}): check --api-key, --api-key-file or H2H_API_KEY`,
      ),
    );
  }
  const saldo = exchanges.map((ex) => bodyOf(ex)).find((b) => b?.ok === true && typeof b.saldo === 'number')?.saldo;
  return { ...(typeof saldo === 'number' ? { saldo } : {}), refusedOn };
}

/** `HTTP 404 text/html "<html><head>..."` of each distinct answer, for a message. */
function answered(exchanges: readonly Exchange[]): string {
  const one = (ex: Exchange): string => {
    const body = bodyOf(ex);
    const shown =
      body && typeof body.status === 'string'
        ? `status ${body.status}`
        : ex.bodyText.trim()
          ? `"${ex.bodyText.replace(/\s+/g, ' ').trim().slice(0, 60)}${ex.bodyText.length > 60 ? '...' : ''}"`
          : 'an empty body';
    return `HTTP ${ex.httpStatus} (${ex.contentType || 'no content type'}), ${shown}`;
  };
  return [...new Set(exchanges.map(one))].join(' and ');
}

/** A path under the base URL that no H2H API has: how the target answers one, or undefined without an answer. */
async function nowhere(raw: RawSend, policy: SendPolicy, apiKey: string): Promise<Exchange | undefined> {
  try {
    return await sendUnderPolicy(raw, NO_SUCH_ENDPOINT, 'POST', { api_key: apiKey }, policy, {
      flaky: [],
      waits: [],
    });
  } catch (err) {
    if (err instanceof TransportError || err instanceof RateLimited) return undefined;
    throw err;
  }
}

/**
 * A name no endpoint of the API has: how the target answers it tells a wrong base URL from a refused key. Sent
 * only when saldo-user was refused on both methods, as a POST (the key never in a URL).
 */
const NO_SUCH_ENDPOINT = 'h2h-contract-no-such-endpoint' as Endpoint;

/** Two refusals alike: the same HTTP status and the same status word. */
function sameRefusal(a: Exchange, b: Exchange): boolean {
  return a.httpStatus === b.httpStatus && bodyOf(a)?.status === bodyOf(b)?.status && bodyOf(b)?.ok === false;
}

/**
 * A failure of the target before the run's first scenario (no answer, or rate limits past --max-wait, while
 * preflight or discovery read it), as the configuration problem it is for the user: exit 2 with one line, never
 * an internal error. Anything else is undefined (a bug of the program stays one).
 */
export function targetProblem(err: unknown, targetLabel: string, doing: string): UsageError | undefined {
  if (err instanceof UsageError) return err;
  if (err instanceof TransportError)
    return new UsageError(
      redact(`target ${targetLabel} gave no answer while ${doing}, before any scenario: ${err.reason}: ${err.message}`),
    );
  if (err instanceof RateLimited)
    return new UsageError(
      redact(`target ${targetLabel} kept answering with rate limits while ${doing}: ${err.message}`),
    );
  return undefined;
}

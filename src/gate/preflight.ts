import { TransportError } from '../client/transport.js';
import { bodyOf } from '../openapi/exchange.js';
import { redact } from '../redact.js';
import { UsageError } from '../shared/config-file.js';
import { RateLimited, type RawSend, type SendPolicy, sendUnderPolicy } from './send-policy.js';

/**
 * One saldo-user call before anything else. A target that does not answer, or that refuses the key, is a
 * configuration error (exit 2) with one line that says so, not a hundred failures. An answer that is not the
 * envelope goes on: the clauses will say what is wrong with it.
 */
export async function preflight(
  raw: RawSend,
  policy: SendPolicy,
  apiKey: string,
  targetLabel: string,
): Promise<{ saldo?: number }> {
  let ex: Awaited<ReturnType<RawSend>>;
  try {
    ex = await sendUnderPolicy(raw, 'saldo-user', 'POST', { api_key: apiKey }, policy, { flaky: [], waits: [] });
  } catch (err) {
    if (err instanceof TransportError)
      throw new UsageError(redact(`target unreachable: ${targetLabel}: ${err.message}`));
    if (err instanceof RateLimited)
      throw new UsageError(redact(`target ${targetLabel} keeps answering with rate limits: ${err.message}`));
    throw err;
  }
  const body = bodyOf(ex);
  if (body?.ok === false)
    throw new UsageError(
      redact(
        `the API key was refused by ${targetLabel} (saldo-user answered HTTP ${ex.httpStatus}, status ${String(body.status)}): check --api-key, --api-key-file or H2H_API_KEY`,
      ),
    );
  return typeof body?.saldo === 'number' && body.ok === true ? { saldo: body.saldo } : {};
}

import type http from 'node:http';
import type { Params } from '../openapi/types.js';
import type { RefusalKind } from '../reading/index.js';
import { type Answer, refuse } from './answer.js';

/** Largest request body read, in bytes; a longer one is refused with BODY_TOO_LARGE. */
export const MAX_BODY = 64 * 1024;

/** The parameters, or the refusal of the request (with its kind where the status alone does not tell it). */
export type ParamsOrRefusal = { params: Params } | { refusal: Answer; kind?: RefusalKind };

/**
 * Parameters of a request: the query string (GET and POST), plus on POST a JSON object or (when the reading
 * reads them) a form-encoded body. A name given in both places with different values is a conflict for the
 * fold to find.
 */
export async function readParams(
  req: http.IncomingMessage,
  url: URL,
  method: 'GET' | 'POST',
  opts: { form: boolean; ignoreBody?: boolean },
): Promise<ParamsOrRefusal> {
  const params: Params = Object.create(null) as Params;
  const add = (k: string, v: unknown): void => {
    const prev = params[k];
    params[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  };
  for (const [k, v] of url.searchParams) add(k, v);
  const read = await readBody(req);
  if (read === 'too-large') return { refusal: refuse('BODY_TOO_LARGE', `The request body is over ${MAX_BODY} bytes.`) };
  if (method === 'GET' || read.length === 0 || opts.ignoreBody) return { params };
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) {
    let body: unknown;
    try {
      body = JSON.parse(read.toString('utf8'));
    } catch (err) {
      return { refusal: refuse('MALFORMED_JSON', `The body is not valid JSON: ${(err as Error).message}`) };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      // JSON, but no object: a provider may word it apart from a body that is no JSON (a learned reading does).
      return {
        refusal: refuse('MALFORMED_JSON', 'The body must be a JSON object whose keys are the parameter names.'),
        kind: 'not-object',
      };
    }
    // A JSON array is one value of the wrong type, never repeated values (those are the query string's): kept
    // whole, so that it is refused as an object is.
    for (const [k, v] of Object.entries(body)) add(k, Array.isArray(v) && params[k] === undefined ? [v] : v);
    return { params };
  }
  if (type === 'application/x-www-form-urlencoded' && opts.form) {
    for (const [k, v] of new URLSearchParams(read.toString('utf8'))) add(k, v);
    return { params };
  }
  return {
    refusal: refuse(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type '${type || '(none)'}' is not read; send application/json${opts.form ? ' or application/x-www-form-urlencoded' : ''}.`,
    ),
  };
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      else chunks.push(c);
      // Past 16x the cap the client is not worth reading to the end: answer and close.
      if (size > MAX_BODY * 16) {
        req.pause();
        resolve('too-large');
      }
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
  });
}

/** Reads what a client sends and discards it, so that an early answer does not reset the connection. */
export function drain(req: http.IncomingMessage): void {
  req.resume();
}

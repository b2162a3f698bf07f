import type { OpenAPIV3_1 } from 'openapi-types';
import { derefIn } from '../openapi/deref.js';

/** One request example of an operation, as a reader sends it by either method. */
export interface RequestSample {
  /** The example's name in the document. */
  name: string;
  /** The POST body, as the document gives it. */
  body: Record<string, unknown>;
  /** The same parameters as a GET request: the path and its query string. */
  get: string;
  /** curl lines for both methods, against $H2H_BASE_URL (what `h2h mock` prints). */
  curlGet: string;
  curlPost: string;
}

/** A value in a query string; a placeholder such as `<API_KEY>` stays readable. */
function queryValue(v: unknown): string {
  return encodeURIComponent(String(v)).replace(/%3C([A-Z_]+)%3E/g, '<$1>');
}

/** A text as one single-quoted POSIX shell word. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The request examples of one path (its POST body examples), each with the GET request that carries the same
 * parameters in its query string and a curl line for each method: what API.md and the HTML reference show.
 */
export function requestSamples(doc: OpenAPIV3_1.Document, path: string): RequestSample[] {
  const deref = <T>(v: unknown): T | undefined => derefIn<T>(doc, v);
  const post = doc.paths?.[path]?.post;
  const body = deref<OpenAPIV3_1.RequestBodyObject>(post?.requestBody);
  const examples = body?.content?.['application/json']?.examples ?? {};
  return Object.entries(examples).flatMap(([name, ex]) => {
    const value = deref<OpenAPIV3_1.ExampleObject>(ex)?.value as Record<string, unknown> | undefined;
    if (!value || typeof value !== 'object') return [];
    const get = `${path}?${Object.entries(value)
      .map(([k, v]) => `${encodeURIComponent(k)}=${queryValue(v)}`)
      .join('&')}`;
    return [
      {
        name,
        body: value,
        get,
        curlGet: `curl "$H2H_BASE_URL${get}"`,
        curlPost: `curl -X POST "$H2H_BASE_URL${path}" -H 'Content-Type: application/json' -d ${quoted(JSON.stringify(value))}`,
      },
    ];
  });
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { packageRoot } from '../shared/package-root.js';
import { ApiModel } from './model.js';
import { DocumentError } from './types.js';

export { ApiModel } from './model.js';
export { DocumentError } from './types.js';

export const DEFAULT_DOCUMENT_PATH = join(packageRoot(), 'openapi.yaml');

const cache = new Map<string, ApiModel>();

/** Loads and compiles openapi.yaml once per process and path. Throws DocumentError on a document it cannot use. */
export function loadApiModel(path = DEFAULT_DOCUMENT_PATH): ApiModel {
  const hit = cache.get(path);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new DocumentError(`cannot read ${path}: ${(err as Error).message}`);
  }
  const api = apiModelFromText(text, path);
  cache.set(path, api);
  return api;
}

export function apiModelFromText(text: string, source: string): ApiModel {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new DocumentError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || !String((doc as { openapi?: unknown }).openapi).startsWith('3.1')) {
    throw new DocumentError(`${source} is not an OpenAPI 3.1 document`);
  }
  return new ApiModel(doc as OpenAPIV3_1.Document, source);
}

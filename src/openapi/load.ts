import { createHash } from 'node:crypto';
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

/** openapi.yaml as the build parsed it (scripts/copy-assets.mjs), with the SHA-256 of its text. */
const PARSED_PATH = join(packageRoot(), 'dist', 'openapi.json');
/** The build's parse, read once; undefined when there is none (a run from src/ before any build). */
let parsedAtBuild: { sha256: string; text: string } | undefined | null = null;

/**
 * The document a text holds: the build's parse when the text is the one it parsed (a copy with one byte changed
 * is parsed here), else the YAML parsed now. Parsing openapi.yaml costs about 0.2 CPU-seconds a process.
 */
function parseDocument(text: string): unknown {
  if (parsedAtBuild === null) {
    try {
      // The build's own file, a few tens of kilobytes: read whole, and only its own document is ever taken.
      const raw = readFileSync(PARSED_PATH, 'utf8');
      const sha256 = (JSON.parse(raw) as { sha256?: unknown }).sha256;
      parsedAtBuild = typeof sha256 === 'string' ? { sha256, text: raw } : undefined;
    } catch {
      parsedAtBuild = undefined;
    }
  }
  if (parsedAtBuild && createHash('sha256').update(text).digest('hex') === parsedAtBuild.sha256)
    return (JSON.parse(parsedAtBuild.text) as { document: unknown }).document;
  return parse(text);
}

export function apiModelFromText(text: string, source: string): ApiModel {
  let doc: unknown;
  try {
    doc = parseDocument(text);
  } catch (err) {
    throw new DocumentError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || !String((doc as { openapi?: unknown }).openapi).startsWith('3.1')) {
    throw new DocumentError(`${source} is not an OpenAPI 3.1 document`);
  }
  return new ApiModel(doc as OpenAPIV3_1.Document, source);
}

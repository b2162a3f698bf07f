import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { yaml } from '../shared/lazy.js';
import { packageRoot } from '../shared/package-root.js';
import { ApiModel, type Precompiled } from './model.js';
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
/** The validators the build compiled from the same text (precompile.ts). */
const VALIDATORS_PATH = join(packageRoot(), 'dist', 'openapi-validators.cjs');
/** The build's parse, read once; undefined when there is none (a run from src/ before any build). */
let parsedAtBuild: { sha256: string; text: string } | undefined | null = null;
/** The build's validators, loaded once; undefined when there are none, or they are of another text. */
let validatorsAtBuild: Precompiled | undefined | null = null;

/** The build's parse, when there is one. */
function buildParse(): { sha256: string; text: string } | undefined {
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
  return parsedAtBuild;
}

/** The build's validators for the text whose SHA-256 is given; a missing or stale file leaves ajv to compile. */
function buildValidators(sha256: string): Precompiled | undefined {
  if (validatorsAtBuild === null) {
    try {
      const mod = createRequire(import.meta.url)(VALIDATORS_PATH) as Precompiled & { sha256?: unknown };
      validatorsAtBuild = mod.sha256 === sha256 ? { response: mod.response, request: mod.request } : undefined;
    } catch {
      validatorsAtBuild = undefined;
    }
  }
  return validatorsAtBuild;
}

/**
 * The document a text holds, and the build's validators for it: the build's parse and validators when the text is
 * the one it parsed (a copy with one byte changed is parsed and compiled here), else the YAML parsed now. Parsing
 * openapi.yaml costs about 0.2 CPU-seconds a process, compiling its validators about as much.
 */
function parseDocument(text: string): { doc: unknown; validators?: Precompiled } {
  const built = buildParse();
  if (built && createHash('sha256').update(text).digest('hex') === built.sha256) {
    const doc = (JSON.parse(built.text) as { document: unknown }).document;
    const validators = buildValidators(built.sha256);
    return validators ? { doc, validators } : { doc };
  }
  return { doc: yaml().parse(text) };
}

export function apiModelFromText(text: string, source: string): ApiModel {
  let parsed: { doc: unknown; validators?: Precompiled };
  try {
    parsed = parseDocument(text);
  } catch (err) {
    throw new DocumentError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  const { doc, validators } = parsed;
  if (typeof doc !== 'object' || doc === null || !String((doc as { openapi?: unknown }).openapi).startsWith('3.1')) {
    throw new DocumentError(`${source} is not an OpenAPI 3.1 document`);
  }
  return new ApiModel(doc as OpenAPIV3_1.Document, source, validators);
}

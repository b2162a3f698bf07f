import type http from 'node:http';
import type https from 'node:https';
import { createRequire } from 'node:module';

/**
 * node:http and node:https, loaded as CommonJS. An ES module's `import http from 'node:http'` builds the module's
 * namespace from all of its exports, and node:http's WebSocket (with its event classes) is a getter that loads
 * undici, Node's fetch, which the toolkit never uses: 50 to 60 ms of CPU in every process that imports it
 * (docs/benchmarks.md). Types come from `import type`, which loads nothing.
 */
const load = createRequire(import.meta.url);
export const httpModule = load('node:http') as typeof http;
export const httpsModule = load('node:https') as typeof https;

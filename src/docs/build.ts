import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiModel } from '../openapi/load.js';
import { enrichForDocs } from './enrich.js';
import { apiMarkdown } from './markdown.js';
import { redocly } from './redocly.js';

/**
 * reports/docs/index.html (Redoc, its bundle inlined so it opens with no network) and reports/docs/API.md,
 * both from openapi.yaml and both byte-for-byte the same for an unchanged document.
 */
export function buildDocs(api: ApiModel, outDir: string): { html: string; markdown: string } {
  mkdirSync(outDir, { recursive: true });
  const markdown = join(outDir, 'API.md');
  writeFileSync(markdown, apiMarkdown(api));
  const tmp = mkdtempSync(join(tmpdir(), 'h2h-docs-'));
  const html = join(outDir, 'index.html');
  try {
    const enriched = join(tmp, 'openapi.json');
    writeFileSync(enriched, JSON.stringify(enrichForDocs(api.doc), null, 2));
    const r = redocly([
      'build-docs',
      enriched,
      '--output',
      html,
      '--inlineBundle',
      '--title',
      api.doc.info.title,
      '--openapi.expandResponses=all',
      '--openapi.schemaExpansionLevel=all',
      '--openapi.jsonSampleExpandLevel=all',
      '--openapi.hideDownloadButtons=true',
    ]);
    if (r.status !== 0) throw new Error(`redocly build-docs failed:\n${r.output}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { html, markdown };
}

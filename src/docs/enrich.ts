import type { OpenAPIV3_1 } from 'openapi-types';
import type { DocNode } from '../openapi/types.js';
import { requestSamples } from './samples.js';

function isNode(v: unknown): v is DocNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The clause texts of the document (`x-contract-clauses`), by id. */
export function clauseTexts(doc: OpenAPIV3_1.Document): Record<string, string> {
  return ((doc as unknown as DocNode)['x-contract-clauses'] ?? {}) as Record<string, string>;
}

/**
 * A copy of the document for renderers that do not show vendor extensions: every `x-assumption` and every
 * `x-clauses` list is written into the description beside it (and a parameter shows its schema's assumption),
 * so the rendered reference carries them. openapi.yaml itself stays the only source.
 */
export function enrichForDocs(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const copy = structuredClone(doc) as unknown as DocNode;
  // Each operation shows its requests by both methods: the GET query string and a curl line beside the POST body.
  for (const [path, item] of Object.entries((copy.paths ?? {}) as Record<string, DocNode>)) {
    const samples = requestSamples(doc, path);
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!isNode(op) || samples.length === 0) continue;
      op['x-codeSamples'] = samples.flatMap((s) =>
        method === 'get'
          ? [{ lang: 'Shell', label: `GET ${s.name}`, source: `${s.curlGet}\n# GET ${s.get}` }]
          : [{ lang: 'Shell', label: `POST ${s.name}`, source: s.curlPost }],
      );
    }
  }
  const clauses = clauseTexts(doc);
  const schemas = ((copy.components as DocNode | undefined)?.schemas ?? {}) as Record<string, DocNode>;
  const schemaAssumption = (ref: unknown): string | undefined => {
    if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) return undefined;
    return schemas[ref.slice('#/components/schemas/'.length)]?.['x-assumption'] as string | undefined;
  };
  const append = (node: DocNode, text: string): void => {
    node.description = node.description ? `${String(node.description)}\n\n${text}` : text;
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const v of node) walk(v);
      return;
    }
    if (!isNode(node)) return;
    for (const v of Object.values(node)) walk(v);
    // A parameter whose schema carries an assumption shows it too (renderers show the parameter's text).
    if (typeof node.in === 'string' && isNode(node.schema)) {
      const a = schemaAssumption(node.schema.$ref);
      if (a) append(node, `**Assumption** (not shown by the provider): ${a}`);
    }
    // So does a response whose body schema carries one (renderers show the response's description).
    if (isNode(node.content) && typeof node.description === 'string') {
      for (const media of Object.values(node.content)) {
        const schema = isNode(media) && isNode(media.schema) ? media.schema : {};
        const refs = [
          schema.$ref,
          ...(Array.isArray(schema.oneOf) ? schema.oneOf.map((b) => (isNode(b) ? b.$ref : undefined)) : []),
        ];
        for (const a of new Set(refs.map(schemaAssumption).filter(Boolean)))
          append(node, `**Assumption** (not shown by the provider): ${a}`);
      }
    }
    if (typeof node['x-assumption'] === 'string')
      append(node, `**Assumption** (not shown by the provider): ${node['x-assumption']}`);
    const ids = node['x-clauses'];
    if (Array.isArray(ids)) {
      append(
        node,
        `**Contract clauses:**\n\n${ids.map((id) => `- **${String(id)}**: ${clauses[String(id)] ?? ''}`).join('\n')}`,
      );
    }
  };
  walk(copy.paths);
  walk(copy.components);
  const info = copy.info as DocNode;
  if (typeof info['x-assumption'] === 'string')
    append(info, `**Assumption** (not shown by the provider): ${info['x-assumption']}`);
  append(
    info,
    `## Contract clauses\n\n| Clause | Text |\n|---|---|\n${Object.entries(clauses)
      .map(([id, t]) => `| ${id} | ${t.replace(/\|/g, '\\|')} |`)
      .join('\n')}`,
  );
  return copy as unknown as OpenAPIV3_1.Document;
}

/** Every `x-assumption` of the document, with where it stands. */
export function assumptions(doc: OpenAPIV3_1.Document): { at: string; text: string }[] {
  const out: { at: string; text: string }[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => {
        walk(v, `${at}[${i}]`);
      });
      return;
    }
    if (!isNode(node)) return;
    if (typeof node['x-assumption'] === 'string') out.push({ at, text: node['x-assumption'] });
    for (const [k, v] of Object.entries(node)) if (k !== 'x-assumption') walk(v, at ? `${at}.${k}` : k);
  };
  walk(doc, '');
  return out;
}

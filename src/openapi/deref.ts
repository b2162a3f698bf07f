import type { OpenAPIV3_1 } from 'openapi-types';

/** Resolves local `$ref`s (`#/components/...`) in a document; undefined when a reference points at nothing. */
export function derefIn<T>(doc: OpenAPIV3_1.Document, value: unknown): T | undefined {
  let cur = value;
  for (let hops = 0; cur && typeof cur === 'object' && '$ref' in cur; hops++) {
    const ref = String((cur as { $ref: unknown }).$ref);
    if (hops > 20 || !ref.startsWith('#/')) return undefined;
    cur = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc,
      );
  }
  return cur as T | undefined;
}

/**
 * The default export of a CommonJS package (ajv-formats, junit-report-builder): under nodenext the default
 * import is the module object on some toolchains and the export itself on others.
 */
export function cjsDefault<T>(mod: unknown): T {
  return (mod as { default?: T }).default ?? (mod as T);
}

import standaloneModule from 'ajv/dist/standalone/index.js';
import { cjsDefault } from '../shared/cjs.js';
import { DOC_ID, newAjv, type ValidatorMode } from './ajv.js';
import type { ApiModel } from './model.js';

// The build's validators (scripts/copy-assets.mjs): ajv's standalone output of every validator the API model
// uses, compiled from openapi.yaml at build time. A process that loads that very document (load.ts checks the
// SHA-256 of its text) takes them instead of making two ajv instances, checking the schemas against the draft
// 2020-12 meta-schema and compiling each validator: about a quarter of a CPU-second in every process that judges
// (the CLI, Playwright's runner and each worker, the probe).

const standaloneCode = cjsDefault<(ajv: unknown, refs: Record<string, string>) => string>(standaloneModule);

/**
 * One CommonJS module holding both modes' validators (`exports.response.Envelope`, `exports.request.<schema>`),
 * each mode's standalone code in a scope of its own, and the SHA-256 of the text the model was loaded from.
 */
export function precompiledModule(api: ApiModel, sha256: string): string {
  const components = api.validatorComponents();
  const modes = (Object.keys(components) as ValidatorMode[]).map((mode) => {
    const ajv = newAjv(mode, api.doc.components?.schemas ?? {}, { source: true });
    const refs = Object.fromEntries(components[mode].map((c) => [c, `${DOC_ID}#/components/schemas/${c}`]));
    for (const ref of Object.values(refs)) if (!ajv.getSchema(ref)) throw new Error(`${ref} does not compile`);
    return `exports.${mode} = (function (exports) {\n${standaloneCode(ajv, refs)}\nreturn exports;\n})({});`;
  });
  return `"use strict";\n// Made by scripts/copy-assets.mjs from openapi.yaml: do not edit.\nexports.sha256 = ${JSON.stringify(sha256)};\n${modes.join('\n')}\n`;
}

import type { ContractFlags } from '../gate/config.js';
import { type Options, strFlag, type Values } from './command.js';

/** The flags that name a contract target and what a run may spend: h2h contract's and h2h replay's. */
export const TARGET_OPTIONS = {
  config: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  'allow-writes': { type: 'boolean' },
  product: { type: 'string' },
  kind: { type: 'string' },
  msisdn: { type: 'string', multiple: true },
  'max-invites': { type: 'string' },
  timeout: { type: 'string' },
  'reports-dir': { type: 'string' },
} as const satisfies Options;

/** Those flags as resolveContractConfig takes them. */
export function targetFlags(values: Values): ContractFlags {
  const flag = (name: string): string | undefined => strFlag(values, name);
  return {
    config: flag('config'),
    baseUrl: flag('base-url'),
    apiKey: flag('api-key'),
    apiKeyFile: flag('api-key-file'),
    allowWrites: values['allow-writes'] === true ? true : undefined,
    product: flag('product'),
    kind: flag('kind'),
    msisdn: values.msisdn as string[] | undefined,
    maxInvites: flag('max-invites'),
    timeout: flag('timeout'),
    reportsDir: flag('reports-dir'),
  };
}

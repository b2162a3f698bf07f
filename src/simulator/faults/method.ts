import type { Fault } from './fault.js';

/**
 * A fault that breaks a whole method: ENV-2, and with it every clause judged on that method's answers (which ones
 * depends on the cases a seed generates). The gate must run on and report it, never take it for a wrong key.
 */
export const METHOD_FAULTS = [
  {
    name: 'post-body-ignored',
    clause: 'ENV-2',
    description: 'POST bodies are not read: a POST carries no parameter, not even its key (GET works)',
  },
] as const satisfies readonly Fault[];

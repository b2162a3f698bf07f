import type { CommandName } from '../shared/settings.js';
import type { Command } from './command.js';

/** One command, known by name and summary before its code is loaded. */
export interface CommandEntry {
  name: CommandName;
  summary: string;
  load(): Promise<Command>;
}

/**
 * Every command, by name: the whole CLI in one place. A command's code (and what it imports: Playwright, ajv,
 * prom-client) is loaded only when that command runs, so `h2h --help` starts as fast as Node.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'contract',
    summary: 'run the contract gate against a target (default: the embedded simulator)',
    load: async () => (await import('./contract.js')).contract,
  },
  {
    name: 'replay',
    summary: 'send saved failing cases again and say which are fixed',
    load: async () => (await import('./replay.js')).replay,
  },
  {
    name: 'probe',
    summary: 'probe the read-only endpoints on a schedule and export Prometheus metrics',
    load: async () => (await import('./probe.js')).probe,
  },
  {
    name: 'mock',
    summary: 'run the reference simulator of the API',
    load: async () => (await import('./mock.js')).mock,
  },
  {
    name: 'validate',
    summary: 'validate a captured response against openapi.yaml and the single-answer clauses',
    load: async () => (await import('./validate.js')).validate,
  },
  {
    name: 'docs',
    summary: 'write the API reference (index.html, API.md) from openapi.yaml',
    load: async () => (await import('./docs.js')).docs,
  },
  {
    name: 'lint',
    summary: "lint openapi.yaml: Redocly's rules and the toolkit's own",
    load: async () => (await import('./lint.js')).lint,
  },
  {
    name: 'diff',
    summary: 'list what a change of openapi.yaml breaks for existing clients',
    load: async () => (await import('./diff.js')).diff,
  },
  {
    name: 'init',
    summary: 'set up in one command: write h2h.config.yaml, probe.yaml and, with --ci, a CI job; never overwrite',
    load: async () => (await import('./init.js')).init,
  },
];

export function topHelp(): string {
  return `h2h: contract testing and monitoring of the H2H member-invitation API

usage: h2h COMMAND [flags] [--debug]   (h2h help COMMAND, or h2h COMMAND --help, for its flags; h2h --version)

${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Examples:
  h2h contract  # the embedded simulator, writes allowed: no key needed
  h2h contract --base-url https://h2h.example --api-key-file ~/.h2h-key  # a real target, read-only
  h2h probe --once  # one round against the embedded simulator, a summary, then exit
  h2h mock  # a free loopback port: prints H2H_BASE_URL and H2H_API_KEY
  h2h help contract  # a command's flags, examples and exit codes

Exit codes: 0 the contract holds, 1 a clause is violated, 2 usage or configuration error, 3 internal error
(one line; --debug prints the stack), 4 inconclusive: nothing violated, but a clause the run meant to judge
could not be judged (h2h contract --allow-inconclusive makes that 0).`;
}

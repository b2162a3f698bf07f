import { UsageError } from '../shared/config-file.js';
import { FAULTS, isFaultName } from './faults/index.js';
import { parseReading } from './legal.js';
import { type Simulator, startSimulator } from './server.js';

/** How a gate run asks for its embedded simulator (`--simulator-fault`, `--simulator-prefix`, `--simulator-legal`). */
export interface EmbeddedOptions {
  fault?: string;
  prefix?: string;
  legal?: string;
}

/** What the gate uses against the embedded simulator: its URL and demo key, and the fixture's test settings. */
export interface EmbeddedTarget {
  sim: Simulator;
  baseUrl: string;
  apiKey: string;
  product: string;
  kind: 'akrab' | 'circle';
  msisdns: string[];
  maxInvites: number;
}

/** Refuses options the embedded simulator cannot take, with an exact message (exit 2). */
export function checkEmbeddedOptions(opts: EmbeddedOptions): void {
  if (opts.fault !== undefined && !isFaultName(opts.fault))
    throw new UsageError(
      `--simulator-fault: unknown fault '${opts.fault}'; one of: ${FAULTS.map((f) => f.name).join(', ')}`,
    );
  if (opts.legal !== undefined) parseReading(opts.legal);
}

/** What the gate uses against a running simulator: its URL and demo key, the fixture's product, numbers and cap. */
export function embeddedTarget(sim: Simulator): Omit<EmbeddedTarget, 'sim'> & { allowWrites: true } {
  const s = sim.fixture.suite;
  return {
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    allowWrites: true,
    product: s.product,
    kind: s.kind,
    msisdns: [...s.msisdns],
    maxInvites: s.max_invites,
  };
}

/** Starts the embedded simulator of a gate run on a free loopback port. */
export async function startEmbedded(opts: EmbeddedOptions, apiKey?: string): Promise<EmbeddedTarget> {
  checkEmbeddedOptions(opts);
  const sim = await startSimulator({
    ...(apiKey ? { apiKey } : {}),
    fault: opts.fault && isFaultName(opts.fault) ? { name: opts.fault } : null,
    prefix: opts.prefix ?? '',
    ...(opts.legal ? { reading: parseReading(opts.legal) } : {}),
  });
  return { sim, ...embeddedTarget(sim) };
}

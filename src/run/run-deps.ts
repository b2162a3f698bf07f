import type { ApiModel } from '../openapi/load.js';
import { InviteLedger } from '../target/invite-ledger.js';
import type { Pace } from '../target/pace.js';
import type { RawSend, SendPolicy } from '../target/send-policy.js';
import type { GateTarget, TargetData } from '../target/target.js';
import type { Deviation } from './config.js';

/** Everything a scenario runs with, shared by the Playwright suite, the in-process runner and `h2h replay`. */
export interface RunDeps {
  api: ApiModel;
  target: GateTarget;
  data: TargetData;
  raw: RawSend;
  policy: SendPolicy;
  ledger: InviteLedger;
  newTrxId: () => string;
  settleMs: number;
  deviations: readonly Deviation[];
  strict: boolean;
  knownStatuses?: readonly string[];
  knownHttpStatuses?: readonly number[];
  /** The seed and size of the generated phases. */
  generation: { seed: number; examples: number };
  /** Where failing generated cases are saved (reports/failures/), with what fills their placeholders. */
  failures?: { dir: string; baseUrl: string };
  /** How long after its answer an invite's charge was seen to land, at most: a balance is at rest only after that. */
  charges: { delayMs: number };
}

/** The settings RunDeps take from a run's config (the gate's, the in-process runner's, replay's). */
export interface RunSettings {
  maxInvites: number;
  /** The ledger's file, shared by the processes of one run; in memory when absent. */
  ledgerFile?: string;
  maxWaitMs: number;
  /** The run's pace (`--concurrency`, `--rate-limit`), shared by everything that sends in the run. */
  pace?: Pace;
  settleMs: number;
  deviations?: readonly Deviation[];
  strict?: boolean;
  knownStatuses?: readonly string[];
  knownHttpStatuses?: readonly number[];
  seed: number;
  examples: number;
  failuresDir?: string;
}

/** The one place RunDeps are assembled. */
export function runDeps(
  api: ApiModel,
  target: GateTarget & { baseUrl: string },
  data: TargetData,
  raw: RawSend,
  newTrxId: () => string,
  s: RunSettings,
): RunDeps {
  const policy: SendPolicy = { maxWaitMs: s.maxWaitMs, ...(s.pace ? { pace: s.pace } : {}) };
  return {
    api,
    target,
    data,
    raw,
    policy,
    ledger: new InviteLedger(s.maxInvites, s.ledgerFile),
    newTrxId,
    settleMs: s.settleMs,
    deviations: s.deviations ?? [],
    strict: s.strict ?? false,
    ...(s.knownStatuses ? { knownStatuses: s.knownStatuses } : {}),
    ...(s.knownHttpStatuses ? { knownHttpStatuses: s.knownHttpStatuses } : {}),
    generation: { seed: s.seed, examples: s.examples },
    charges: { delayMs: 0 },
    ...(s.failuresDir ? { failures: { dir: s.failuresDir, baseUrl: target.baseUrl } } : {}),
  };
}

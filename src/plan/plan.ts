import type { TargetData } from '../target/target.js';
import { type Form, isPlainOpenApi, type Scenario } from './scenario.js';

/** What decides which scenarios run: the gate's settings, nothing else. */
export interface PlanOptions {
  allowWrites: boolean;
  /** The invite cap (`--max-invites`). */
  maxInvites: number;
  /** Only scenarios whose title matches (`--grep`, a regular expression). */
  grep?: string | undefined;
  /** Only scenarios whose requests plain OpenAPI can express (`--canonical-only`). */
  canonicalOnly: boolean;
}

/** One scenario as the run will take it: its form, and why it will not run if it will not. */
export interface PlannedScenario {
  scenario: Scenario;
  form: Form;
  /** Known before the run: writes not allowed, over the cap. */
  skip?: { kind: 'read-only' | 'invite-cap'; reason: string };
}

export interface Plan {
  /** In run order. In the invite area: refusal scenarios, then safe forms, then writes by priority. */
  entries: PlannedScenario[];
  /** Invites that a conformant API carries out, summed over the writes planned. */
  writes: number;
  /** Invites that a conformant API must refuse, sent where a broken one could charge them. */
  refusals: number;
  /** The most the run can have charged: the cap. */
  cap: number;
}

const NEEDS_WRITES = { kind: 'read-only', reason: 'needs writes: run with --allow-writes' } as const;

/**
 * The one planner. It filters the catalogue (grep, canonical-only), picks each invite scenario's form (the
 * writes that fit the cap, most important first; the rest in their safe form, or skipped), and orders the
 * invite area so that refusals run while the whole budget is still there. The Playwright suite and the
 * in-process runner both run what it returns.
 */
export function planRun(catalogue: readonly Scenario[], opts: PlanOptions): Plan {
  const grep = opts.grep ? new RegExp(opts.grep) : undefined;
  const chosen = catalogue.filter((s) => (!grep || grep.test(s.title)) && (!opts.canonicalOnly || isPlainOpenApi(s)));
  const decided = new Map<Scenario, PlannedScenario>();
  let writes = 0;
  let refusals = 0;
  // What the writes planned can cost at worst: their own refusals counted as if a broken API charged them.
  let worst = 0;
  const writing = chosen
    .filter((s) => (s.invite?.writes ?? 0) > 0)
    .sort((a, b) => (a.invite?.priority ?? 0) - (b.invite?.priority ?? 0));
  // The cap under which every writing scenario chosen gets its writing form.
  const runsAll = writing.reduce((n, s) => n + (s.invite?.writes ?? 0) + (s.invite?.risk ?? 0), 0);
  for (const s of writing) {
    const use = s.invite;
    if (!use) continue;
    const cost = use.writes + use.risk;
    if (opts.allowWrites && worst + cost <= opts.maxInvites) {
      worst += cost;
      writes += use.writes;
      refusals += use.risk;
      decided.set(s, { scenario: s, form: 'write' });
    } else if (use.safe) {
      decided.set(s, { scenario: s, form: 'safe' });
    } else {
      decided.set(s, {
        scenario: s,
        form: 'write',
        skip: opts.allowWrites
          ? {
              kind: 'invite-cap',
              reason: `over the invite cap (--max-invites ${opts.maxInvites}; ${runsAll} runs every writing scenario)`,
            }
          : NEEDS_WRITES,
      });
    }
  }
  for (const s of chosen) {
    if (decided.has(s)) continue;
    if (s.afterWrites && !opts.allowWrites) decided.set(s, { scenario: s, form: 'write', skip: NEEDS_WRITES });
    // The cap left no invite to carry out (--max-invites 0, say): what reads the run's own invites back has
    // nothing to read, by the user's choice, not the target's doing.
    else if (s.afterWrites && writes === 0 && writing.length > 0)
      decided.set(s, {
        scenario: s,
        form: 'write',
        skip: {
          kind: 'invite-cap',
          reason: `reads the run's own invites, and the invite cap leaves none (--max-invites ${opts.maxInvites}; ${runsAll} runs every writing scenario)`,
        },
      });
    else if (!s.invite) decided.set(s, { scenario: s, form: 'write' });
    else if (opts.allowWrites) {
      refusals += s.invite.risk;
      decided.set(s, { scenario: s, form: 'write' });
    } else if (s.invite.safe) decided.set(s, { scenario: s, form: 'safe' });
    else decided.set(s, { scenario: s, form: 'write', skip: NEEDS_WRITES });
  }
  const rank = (p: PlannedScenario): number => {
    const use = p.scenario.invite;
    if (!use) return 0;
    if (use.writes === 0) return 1;
    return p.form === 'safe' ? 2 : 3;
  };
  const entries = chosen
    .map((s) => decided.get(s) as PlannedScenario)
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        rank(a.p) - rank(b.p) ||
        (a.p.scenario.invite?.priority ?? 0) - (b.p.scenario.invite?.priority ?? 0) ||
        a.i - b.i,
    )
    .map(({ p }) => p);
  return { entries, writes, refusals, cap: opts.maxInvites };
}

/**
 * Why a scenario did not run, or stopped before it judged, as a kind: the summary and the reports tell them apart
 * by it, never by the reason's words. `read-only` and `invite-cap`, the run's settings (skipped); `no-data`, the
 * account lacks what it takes its values from; `no-answer`, a transport failure; `invite-barred`, the ledger
 * would not send an invite (its trx_id got no answer, or its class saw a refusal accepted); `precondition`, what
 * it needs did not happen (a refusal the account's balance explains); `nothing-to-judge`, the run's settings leave
 * it nothing (skipped); `rate-limit`, past --max-wait; `no-report`, its test ended before it reported.
 */
export type StopKind =
  | 'read-only'
  | 'invite-cap'
  | 'no-data'
  | 'no-answer'
  | 'invite-barred'
  | 'precondition'
  | 'nothing-to-judge'
  | 'rate-limit'
  | 'no-report';

/** Why a scenario does not run (or stopped): the user's choice (`skipped`), or what it lacked (`inconclusive`). */
export interface NotRun {
  status: 'skipped' | 'inconclusive';
  kind: StopKind;
  reason: string;
}

/** Whether a scenario lacks data of the target that it takes its values from. */
function lacks(entry: PlannedScenario, data: TargetData): 'history' | 'known-trx' | undefined {
  const needs = entry.scenario.needs ?? [];
  if (needs.includes('history') && !data.record) return 'history';
  if ((needs.includes('known-trx') || entry.form === 'safe') && !data.knownTrxId) return 'known-trx';
  return undefined;
}

/**
 * Whether a scenario waits for the run's own invites: it reads what they wrote (`afterWrites`), or it needs
 * history or a known transaction that the account lacks and the run's invites will make. It then runs after every
 * invite of the run, on the target's history read again.
 */
export function runsAfterWrites(entry: PlannedScenario, data: TargetData, plan: Pick<Plan, 'writes'>): boolean {
  if (entry.skip || plan.writes === 0) return false;
  return entry.scenario.afterWrites === true || lacks(entry, data) !== undefined;
}

/**
 * Why a planned scenario cannot run on this target's data, or undefined when it can. `rediscovered`: the data is
 * the history read again after the run's own invites.
 */
export function dataSkip(entry: PlannedScenario, data: TargetData, rediscovered = false): NotRun | undefined {
  if (entry.skip) return { status: 'skipped', ...entry.skip };
  const missing = lacks(entry, data);
  const after = rediscovered ? ', and the run’s own invites made none (were they refused?)' : '';
  if (missing === 'history')
    return {
      status: 'inconclusive',
      kind: 'no-data',
      reason: `no history: dates, IDs and numbers are taken from the account's own records${after}; allow writes (the run's own invites make some) or use an account with history`,
    };
  if (missing === 'known-trx') {
    const why = `no known transaction${after}: pass --trx-id, allow writes, or use an account with history`;
    return {
      status: 'inconclusive',
      kind: 'no-data',
      reason: entry.form === 'safe' ? `its safe form reuses a transaction ID, and there is ${why}` : why,
    };
  }
  return undefined;
}

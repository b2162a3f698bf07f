import { stringify } from 'yaml';
import type { ApiModel } from '../openapi/load.js';
import { KNOB_NAMES, KNOBS, type Knob } from '../openapi/open-points.js';
import { readingFacts } from '../openapi/reading-facts.js';
import { READING_FILE_VERSION, type Vocabulary } from '../openapi/reading-file.js';
import type { Exchange } from '../openapi/types.js';
import { redactValue } from '../redact.js';
import { evidenceOf } from './learn-vocabulary.js';
import type { ReadingFact, ShownExchange } from './scenario-result.js';
import { type FaultContext, vocabularyFacts } from './vocabulary.js';

/**
 * The provider's reading, learned: for every open point of the API (a knob of src/simulator/legal.ts), what the
 * target did, from the answers the run got anyway and a few read-only requests of its own (catalogue/reading.ts).
 * A fact about the provider, never a finding. What a run could not see is said, with the reason.
 */

/** One open point as learned: `value` in the form `h2h mock --legal-profile` reads; none when not learned. */
export interface LearnedPoint {
  knob: Knob;
  /** What the provider's description says of it. */
  described: string;
  value?: string;
  /** Why it was not learned, or what else is worth knowing (a mixed answer, an estimate). */
  note?: string;
  /** How often each value was seen. */
  seen: Record<string, number>;
  /** A request and answer that show it (redacted). */
  evidence?: ShownExchange;
}

const DESCRIBED: Partial<Record<Knob, string>> = {
  'content-type': 'JSON (no Content-Type shown)',
  saldo: 'a number; the example is an integer',
  'refusal-http': 'not shown (no error answer is shown)',
  'refusal-words': 'not shown (no error answer is shown)',
};

/** The facts of a scenario's answers, each knob and value once, with the first answer that shows it. */
export function scenarioFacts(
  api: ApiModel,
  exchanges: readonly Exchange[],
  ctx: FaultContext,
  extraFields: (ex: Exchange) => boolean,
  show: (ex: Exchange) => ShownExchange,
): ReadingFact[] {
  const out = new Map<string, ReadingFact>();
  for (const ex of exchanges) {
    for (const f of readingFacts(api, ex, ctx.apiKey, extraFields(ex))) {
      const key = `${f.knob}=${f.value}`;
      if (!out.has(key)) out.set(key, { point: 'reading', ...f, evidence: show(ex) });
    }
    // The vocabulary's facts add up: answers, records and numbers seen, each value with its first evidence.
    for (const f of vocabularyFacts(api, ex, ctx)) {
      const key = `${f.knob}=${f.value}`;
      const seen = out.get(key);
      if (seen) seen.count = (seen.count ?? 1) + (f.count ?? 1);
      else out.set(key, { ...f, ...(f.detail ? { detail: redactValue(f.detail) } : {}), evidence: show(ex) });
    }
  }
  return [...out.values()];
}

/** The value seen most often (and a note when more than one was seen). */
function majority(seen: Record<string, number>): { value?: string; note?: string } {
  const list = Object.entries(seen).sort((a, b) => b[1] - a[1]);
  const [first] = list;
  if (!first) return {};
  return list.length === 1
    ? { value: first[0] }
    : { value: first[0], note: `mixed: ${list.map(([v, n]) => `${v} ${n}`).join(', ')}` };
}

/**
 * The run's facts, knob by knob. `allowWrites`: what needs an invite (the lag, what the balance covers) could be
 * seen.
 */
export function learnReading(facts: readonly ReadingFact[], run: { allowWrites: boolean }): LearnedPoint[] {
  const seen = new Map<string, Record<string, number>>();
  const evidence = new Map<string, ShownExchange>();
  for (const f of facts) {
    const s = seen.get(f.knob) ?? {};
    s[f.value] = (s[f.value] ?? 0) + 1;
    seen.set(f.knob, s);
    if (f.evidence && !evidence.has(`${f.knob}=${f.value}`)) evidence.set(`${f.knob}=${f.value}`, f.evidence);
  }
  const of = (knob: string): Record<string, number> => seen.get(knob) ?? {};
  const values = (knob: string): string[] => Object.keys(of(knob));
  const out: LearnedPoint[] = [];
  for (const knob of KNOB_NAMES) {
    const point: LearnedPoint = { knob, described: DESCRIBED[knob] ?? 'not shown', seen: of(knob) };
    const set = (value: string | undefined, note?: string, evidenceKey = `${knob}=${value}`): void => {
      if (value !== undefined) point.value = value;
      if (note) point.note = note;
      const e = evidence.get(evidenceKey);
      if (e) point.evidence = e;
    };
    switch (knob) {
      case 'extra':
        set(of(knob).everywhere ? 'everywhere' : values(knob).length ? 'none' : undefined);
        break;
      case 'order': {
        const v = values(knob);
        if (!v.length) set(undefined, 'no history page had records of two different dates');
        else if (v.includes('shuffled') || (v.includes('newest') && v.includes('oldest'))) set('shuffled');
        else set(v[0]);
        break;
      }
      case 'default-limit':
      case 'max-limit':
      case 'q-case': {
        // Learned by the reading scenario alone (catalogue/reading.ts), which says why when it cannot.
        const m = majority(of(knob));
        const why = values(`${knob}?`)[0];
        if (m.value !== undefined) set(m.value, m.note ?? why);
        else set(undefined, why ?? NOT_SEEN[knob] ?? 'not asked (--grep)');
        break;
      }
      case 'repeat': {
        // A replay answers the same request again; a used trx_id with other parameters may still be refused.
        const v = of(knob);
        if (v.replay)
          set(
            'replay',
            v.refuse ? 'the same invite again is answered again; with other parameters, refused' : undefined,
          );
        else set(v.refuse ? 'refuse' : undefined, v.refuse ? undefined : NOT_SEEN[knob]);
        break;
      }
      case 'rate-limit': {
        // The run's pace learned the rate at which the provider limited it: the lowest is the provider's limit.
        const limited = values('rate-limited');
        const rates = values('rate-seen')
          .map(Number)
          .filter((r) => r > 0);
        const waits = Object.values(of('rate-limited')).reduce((a, n) => a + n, 0);
        if (rates.length) {
          const rate = Math.max(1, Math.round(Math.min(...rates)));
          const status = limited.includes('429') || !limited.includes('503') ? '' : ':503';
          set(
            `${rate}/s${status}`,
            `limited at about ${rate} requests a second with HTTP ${limited.join(' and ') || '429'} (the run's pace learned it; ${waits} limit(s) waited out)`,
            `rate-limited=${limited[0]}`,
          );
        } else
          set(
            undefined,
            limited.length
              ? `seen: HTTP ${limited.join(' and ')}, too seldom to measure a rate`
              : 'no rate-limit answer came (a limit above the run’s pace cannot be seen)',
            `rate-limited=${limited[0]}`,
          );
        break;
      }
      case 'slot':
        set(
          undefined,
          'which slot an invite gets depends on every manager’s members, which no endpoint shows: it cannot be learned',
        );
        break;
      case 'post-body':
        set(undefined, 'the gate sends JSON bodies only (ENV-2); whether form bodies are read is not asked');
        break;
      case 'lag': {
        const spans = values('lag').map((v) => v.split('..').map(Number) as [number, number]);
        if (!spans.length)
          set(
            undefined,
            run.allowWrites ? 'no invite was seen to show (INV-6 did not run)' : 'needs an invite: --allow-writes',
          );
        else {
          // Shown no earlier than the last read that missed it, and no later than the first that found it.
          const lo = Math.max(...spans.map(([a]) => a));
          const hi = Math.min(...spans.map(([, b]) => b));
          const ms = lo < 0 ? 0 : Math.round((lo + Math.max(lo, hi)) / 2 / 100) * 100;
          set(
            `${ms}ms`,
            lo < 0 ? `shown at the first read (within ${hi} ms)` : `shown after ${lo}..${hi} ms (to 100 ms)`,
            `lag=${values('lag')[0]}`,
          );
        }
        break;
      }
      case 'balance': {
        const price = values('balance-runs-out').map(Number)[0];
        const start = Math.max(0, ...values('saldo-value').map(Number));
        if (of('history-at-start').empty && !of('history-at-start').some) set('empty');
        else if (price !== undefined && price > 0)
          set(String(Math.floor(start / price)), `the balance (${start}) covers that many invites of ${price}`);
        else if (run.allowWrites && values('history-at-start').length) set('ample');
        else if (!run.allowWrites) set(undefined, 'needs invites: --allow-writes shows whether the balance runs out');
        else set(undefined, 'the account’s history was not read');
        break;
      }
      default: {
        const m = majority(of(knob));
        if (m.value === undefined) set(undefined, NOT_SEEN[knob] ?? 'no answer showed it');
        else set(m.value, m.note);
      }
    }
    out.push(point);
  }
  return out;
}

const NOT_SEEN: Partial<Record<Knob, string>> = {
  'refusal-http': 'no refusal came',
  'refusal-words': 'no wrong key was refused on saldo-user',
  message: 'no successful read came',
  'manager-form': 'no history record came',
  'member-form': 'no history record came',
  saldo: 'no balance came',
  repeat:
    'no used trx_id was refused for that alone: a read-only run repeats one only with a product that cannot exist, which a provider may refuse first (--allow-writes repeats one with the product)',
  conflict: 'no request with two names of one parameter was answered',
  'q-case': 'no record with letters in its trx_id to search in another case',
  'default-limit': 'not asked (--grep)',
  'max-limit': 'not asked (--grep)',
  'trx-id': 'needs invites of unusual IDs: --allow-writes',
  neighbour:
    'another client’s work shows only as records the run did not make, which no run can tell from its own account’s past',
};

/**
 * The learned reading as the file `h2h mock --legal-profile` reads (docs/gate.md, "The reading file"): its
 * version, where it was learned, the knobs (what was not learned is a comment, with the reason), each knob's
 * evidence, then the provider's vocabulary.
 */
export function readingYaml(
  points: readonly LearnedPoint[],
  vocabulary: Vocabulary,
  learned: { from: string; at: string; run?: string },
): string {
  const lines = [
    `# The provider's reading, learned by h2h contract from ${learned.from}.`,
    '# Serve it: h2h mock --legal-profile provider-reading.yaml. Its schema: docs/gate.md (the reading file).',
    '# A knob not learned is a comment: the simulator plays the reference value there.',
    `version: ${READING_FILE_VERSION}`,
    stringify({ learned }, { lineWidth: 0 }).trimEnd(),
  ];
  for (const p of points) {
    const note = p.note ? `  # ${p.note}` : '';
    lines.push(p.value === undefined ? `# ${p.knob}: not learned: ${p.note ?? ''}` : `${p.knob}: "${p.value}"${note}`);
  }
  const evidence = Object.fromEntries(
    points.filter((p) => p.value !== undefined && p.evidence).map((p) => [p.knob, evidenceOf(p.evidence)]),
  );
  const rest = { ...(Object.keys(evidence).length ? { evidence } : {}), ...vocabulary };
  return `${lines.join('\n')}\n${Object.keys(rest).length ? stringify(rest, { lineWidth: 0 }) : ''}`;
}

/** What the knob is about, for a table. */
export const aboutKnob = (k: Knob): string => KNOBS[k].about;

import { stringify } from 'yaml';
import type { ApiModel } from '../openapi/load.js';
import { KNOB_NAMES, KNOBS, type Knob } from '../openapi/open-points.js';
import type { Exchange, ShownExchange } from '../openapi/types.js';
import { madeUpPhones, redactValue } from '../redact.js';
import { readingFacts } from './answer-facts.js';
import { READING_FILE_VERSION, type Vocabulary } from './file.js';
import { evidenceOf } from './learn-tally.js';
import type { LearnedPoint, ReadingFact } from './types.js';
import { type FaultContext, vocabularyFacts } from './vocabulary-facts.js';

/**
 * The provider's reading, learned: for every open point of the API (a knob of src/simulator/legal.ts), what the
 * target did, from the answers the run got anyway and a few read-only requests of its own
 * (src/plan/catalogue/reading.ts).
 * A fact about the provider, never a finding. What a run could not see is knobSays, with the reason.
 */

const DESCRIBED: Partial<Record<Knob, string>> = {
  'content-type': 'JSON (no Content-Type shown)',
  saldo: 'a number; the example is an integer',
  'refusal-http': 'not shown (no error answer is shown)',
  'refusal-words': 'not shown (no error answer is shown)',
};

/**
 * The facts of a scenario's answers, each knob and value once, with the first answer that shows it. `quiet`: answers
 * of a property's exploration that no case adopted, which tell the provider's vocabulary only (its words, the order
 * of its checks over requests with several faults), never a knob.
 */
export function scenarioFacts(
  api: ApiModel,
  exchanges: readonly Exchange[],
  ctx: FaultContext,
  extraFields: (ex: Exchange) => boolean,
  show: (ex: Exchange) => ShownExchange,
  opts: { quiet?: readonly Exchange[] } = {},
): ReadingFact[] {
  const out = new Map<string, ReadingFact>();
  // One exchange is the evidence of many facts: shown (redacted) once.
  const shown = new Map<Exchange, ShownExchange>();
  const once = (ex: Exchange): ShownExchange => {
    const s = shown.get(ex) ?? show(ex);
    shown.set(ex, s);
    return s;
  };
  const loud = new Set(exchanges);
  const quiet = new Set((opts.quiet ?? []).filter((ex) => !loud.has(ex)));
  for (const ex of [...exchanges, ...quiet]) {
    if (!quiet.has(ex))
      for (const f of readingFacts(api, ex, ctx.apiKey, extraFields(ex))) {
        const key = `${f.knob}=${f.value}`;
        if (!out.has(key)) out.set(key, { point: 'reading', ...f, evidence: once(ex) });
      }
    // The vocabulary's facts add up: answers, records and numbers seen, each value with its first evidence.
    for (const f of vocabularyFacts(api, ex, ctx)) {
      const key = `${f.knob}=${f.value}`;
      const seen = out.get(key);
      if (seen) seen.count = (seen.count ?? 1) + (f.count ?? 1);
      else out.set(key, { ...f, ...(f.detail ? { detail: redactValue(f.detail) } : {}), evidence: once(ex) });
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

/** What one knob's facts say: its value (none when not learned), a note, and the key of the fact that shows it. */
interface KnobValue {
  value: string | undefined;
  note?: string | undefined;
  evidenceKey?: string;
}

/** How often each value of a knob was seen (none: an empty record). */
type SeenOf = (knob: string) => Record<string, number>;

/** A knob's value with its note; its evidence the fact `evidenceKey`, by default the value's own. */
const knobSays = (value: string | undefined, note?: string, evidenceKey?: string): KnobValue => ({
  value,
  note,
  ...(evidenceKey !== undefined ? { evidenceKey } : {}),
});

/** The order of history records: shuffled when both orders were seen. */
function readOrder(v: readonly string[]): KnobValue {
  if (!v.length) return knobSays(undefined, 'no history page had records of two different dates');
  if (v.includes('shuffled') || (v.includes('newest') && v.includes('oldest'))) return knobSays('shuffled');
  return knobSays(v[0]);
}

/** A knob learned by the reading scenario alone (src/plan/catalogue/reading.ts), which says why when it cannot. */
function readAskedKnob(knob: Knob, of: SeenOf): KnobValue {
  const m = majority(of(knob));
  const why = Object.keys(of(`${knob}?`))[0];
  if (m.value !== undefined) return knobSays(m.value, m.note ?? why);
  return knobSays(undefined, why ?? NOT_SEEN[knob] ?? 'not asked (--grep)');
}

/** What a repeated trx_id gets: a replay answers the same request again; other parameters may still be refused. */
function readRepeatKnob(v: Record<string, number>): KnobValue {
  if (v.replay)
    return knobSays(
      'replay',
      v.refuse ? 'the same invite again is answered again; with other parameters, refused' : undefined,
    );
  return knobSays(v.refuse ? 'refuse' : undefined, v.refuse ? undefined : NOT_SEEN.repeat);
}

/**
 * The rate the provider limited the run at, learned from its pace: the least rate that let through what got
 * through, which only grows as the run goes on, so the last scenario's, the most of them, is the run's.
 */
function readRateLimit(of: SeenOf): KnobValue {
  const limited = Object.keys(of('rate-limited'));
  const rates = Object.keys(of('rate-seen'))
    .map(Number)
    .filter((r) => r > 0);
  const waits = Object.values(of('rate-limited')).reduce((a, n) => a + n, 0);
  if (rates.length) {
    const rate = Math.max(1, Math.round(Math.max(...rates)));
    const status = limited.includes('429') || !limited.includes('503') ? '' : ':503';
    return knobSays(
      `${rate}/s${status}`,
      `limited at about ${rate} requests a second with HTTP ${limited.join(' and ') || '429'} (the run's pace learned it; ${waits} limit(s) waited out)`,
      `rate-limited=${limited[0]}`,
    );
  }
  return knobSays(
    undefined,
    limited.length
      ? `seen: HTTP ${limited.join(' and ')}, too seldom to measure a rate`
      : 'no rate-limit answer came (a limit above the run’s pace cannot be seen)',
    `rate-limited=${limited[0]}`,
  );
}

/** How long an invite takes to show, to 100 ms: after the last read that missed it, by the first that found it. */
function readLag(lags: readonly string[], allowWrites: boolean): KnobValue {
  const spans = lags.map((v) => v.split('..').map(Number) as [number, number]);
  if (!spans.length)
    return knobSays(
      undefined,
      allowWrites ? 'no invite was seen to show (INV-6 did not run)' : 'needs an invite: --allow-writes',
    );
  // Shown no earlier than the last read that missed it, and no later than the first that found it.
  const lo = Math.max(...spans.map(([a]) => a));
  const hi = Math.min(...spans.map(([, b]) => b));
  const ms = lo < 0 ? 0 : Math.round((lo + Math.max(lo, hi)) / 2 / 100) * 100;
  return knobSays(
    `${ms}ms`,
    lo < 0 ? `shown at the first read (within ${hi} ms)` : `shown after ${lo}..${hi} ms (to 100 ms)`,
    `lag=${lags[0]}`,
  );
}

/** How many invites the balance covers: `empty`, a count, `ample`, or why it was not learned. */
function readBalance(of: SeenOf, allowWrites: boolean): KnobValue {
  const price = Object.keys(of('balance-runs-out')).map(Number)[0];
  const start = Math.max(0, ...Object.keys(of('saldo-value')).map(Number));
  if (of('history-at-start').empty && !of('history-at-start').some) return knobSays('empty');
  if (price !== undefined && price > 0)
    return knobSays(String(Math.floor(start / price)), `the balance (${start}) covers that many invites of ${price}`);
  if (allowWrites && Object.keys(of('history-at-start')).length) return knobSays('ample');
  if (!allowWrites) return knobSays(undefined, 'needs invites: --allow-writes shows whether the balance runs out');
  return knobSays(undefined, 'the account’s history was not read');
}

/** What the facts say of one knob. */
function readKnob(knob: Knob, of: SeenOf, run: { allowWrites: boolean }): KnobValue {
  switch (knob) {
    case 'extra':
      return knobSays(of(knob).everywhere ? 'everywhere' : Object.keys(of(knob)).length ? 'none' : undefined);
    case 'order':
      return readOrder(Object.keys(of(knob)));
    case 'default-limit':
    case 'max-limit':
    case 'q-case':
      return readAskedKnob(knob, of);
    case 'repeat':
      return readRepeatKnob(of(knob));
    case 'rate-limit':
      return readRateLimit(of);
    case 'slot':
      return knobSays(
        undefined,
        'which slot an invite gets depends on every manager’s members, which no endpoint shows: it cannot be learned',
      );
    case 'post-body':
      return knobSays(undefined, 'the gate sends JSON bodies only (ENV-2); whether form bodies are read is not asked');
    case 'lag':
      return readLag(Object.keys(of('lag')), run.allowWrites);
    case 'balance':
      return readBalance(of, run.allowWrites);
    default: {
      const m = majority(of(knob));
      if (m.value === undefined) return knobSays(undefined, NOT_SEEN[knob] ?? 'no answer showed it');
      return knobSays(m.value, m.note);
    }
  }
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
  return KNOB_NAMES.map((knob) => {
    const point: LearnedPoint = { knob, described: DESCRIBED[knob] ?? 'not shown', seen: of(knob) };
    const { value, note, evidenceKey = `${knob}=${value}` } = readKnob(knob, of, run);
    if (value !== undefined) point.value = value;
    if (note) point.note = note;
    // A value rests on an answer that shows it: the value's own fact, else any fact it was read from.
    const e =
      evidence.get(evidenceKey) ??
      [...evidence].find(([key]) => (EVIDENCE_OF[knob] ?? [knob]).includes(key.slice(0, key.indexOf('='))))?.[1];
    if (e) point.evidence = e;
    // The rate is measured over the run's pace, not shown by one answer (its 429s carry no exchange): kept.
    else if (point.value !== undefined && knob !== 'rate-limit') {
      // A value no answer shows is not learned (docs/gate.md, the reading file).
      point.note = `not learned: no answer of the run shows it (read ${point.value})`;
      delete point.value;
    }
    return point;
  });
}

/** The facts a knob's value is read from, whose answers are its evidence (the knob's own facts by default). */
const EVIDENCE_OF: Partial<Record<Knob, string[]>> = {
  balance: ['balance-runs-out', 'saldo-value', 'history-at-start'],
  'rate-limit': ['rate-limited'],
};

const NOT_SEEN: Partial<Record<Knob, string>> = {
  'refusal-http': 'no refusal came',
  'refusal-words': 'no wrong key was refused on saldo-user',
  message: 'no successful read came',
  'manager-form': 'no history record came',
  'member-form': 'no history record came',
  saldo: 'no balance came',
  repeat:
    'no invite was sent again as it was and answered for its used trx_id alone: a read-only run repeats one only with a product that cannot exist, which a provider may refuse first (--allow-writes repeats one with the product; a repeat with another member tells nothing, as a provider that replays refuses it too)',
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
  // Each entry is one line (lineWidth 0), so a redaction of the file never runs from one entry into the next; a
  // number the run masked is written as a made-up number of its form.
  return madeUpPhones(`${lines.join('\n')}\n${Object.keys(rest).length ? stringify(rest, { lineWidth: 0 }) : ''}`);
}

/** What the knob is about, for a table. */
export const aboutKnob = (k: Knob): string => KNOBS[k].about;

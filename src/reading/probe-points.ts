import type { ApiModel } from '../openapi/load.js';
import type { Exchange } from '../openapi/types.js';
import { readingFacts } from './answer-facts.js';

/**
 * The open points the probe's three read-only calls show (issue 19): each a knob of src/openapi/open-points.ts,
 * exported as `h2h_provider_reading_info{target, point, value}`. The probe sends nothing for them: they are read
 * from the answers it gets anyway. Refusals, limits, the lag and the like need requests the probe never makes.
 */
export const PROBE_READING_POINTS = [
  'content-type',
  'content-coding',
  'extra',
  'message',
  'saldo',
  'manager-form',
  'member-form',
  'order',
] as const;
export type ProbePoint = (typeof PROBE_READING_POINTS)[number];

/** The probe's history page shows its order only with this many distinct dates (a shuffled page of 4 looks
 * sorted 1 time in 12; over the window below, a false change needs 6 such rounds of 10). */
const ORDER_MIN_DATES = 4;

/** Rounds a point's shown value is chosen over, and the share a new value needs to replace it. */
export const READING_WINDOW = 10;

export type PointValues = Partial<Record<ProbePoint, string>>;

const isPoint = (k: string): k is ProbePoint => (PROBE_READING_POINTS as readonly string[]).includes(k);

/**
 * The value of each point that most of the given values show (the first seen among equals), as the gate's
 * reading file learns it: values the file and the mock know, never a word of the probe's own. A history page of
 * 99 members in 62-form and 77 in 08-form shows `62`, as the file's `member-form` does (its vocabulary keeps the
 * shares).
 */
function mostShown(values: Iterable<[string, string]>): PointValues {
  const tally = new Map<ProbePoint, Map<string, number>>();
  for (const [point, value] of values) {
    if (!isPoint(point)) continue;
    const counts = tally.get(point) ?? new Map<string, number>();
    tally.set(point, counts.set(value, (counts.get(value) ?? 0) + 1));
  }
  const out: PointValues = {};
  for (const [point, counts] of tally) {
    let best: [string, number] | undefined;
    for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
    if (best) out[point] = best[0];
  }
  return out;
}

/** What one answer shows of the points. */
export function answerPoints(api: ApiModel, ex: Exchange, apiKey: string, extraFields: boolean): PointValues {
  return mostShown(
    readingFacts(api, ex, apiKey, extraFields, { orderMinDates: ORDER_MIN_DATES }).map((f) => [f.knob, f.value]),
  );
}

/** What one round's answers show together: each answer's value of a point counts once. */
export function roundPoints(answers: readonly (PointValues | undefined)[]): PointValues {
  return mostShown(answers.flatMap((a) => Object.entries(a ?? {}) as [string, string][]));
}

/**
 * The reading a target shows, steadied over its last rounds: a point's shown value changes only when a new value
 * was seen in more than half of the last READING_WINDOW rounds that showed the point, so a change shows within
 * six rounds and a per-request shuffle or one odd answer does not make it flap. A point no round showed has none.
 */
export class ReadingWindow {
  private readonly seen = new Map<string, Map<ProbePoint, string[]>>();
  private readonly shown = new Map<string, PointValues>();

  constructor(private readonly size = READING_WINDOW) {}

  /** Takes one round's values of a target; returns what the target now shows. */
  observe(target: string, round: PointValues): PointValues {
    const seen = this.seen.get(target) ?? new Map<ProbePoint, string[]>();
    this.seen.set(target, seen);
    const shown = { ...this.shown.get(target) };
    for (const [point, value] of Object.entries(round) as [ProbePoint, string][]) {
      const last = [...(seen.get(point) ?? []), value].slice(-this.size);
      seen.set(point, last);
      const current = shown[point];
      if (current === undefined) shown[point] = value;
      else if (value !== current && last.filter((v) => v === value).length * 2 > this.size) shown[point] = value;
    }
    this.shown.set(target, shown);
    return shown;
  }

  /** What the target shows now. */
  of(target: string): PointValues {
    return { ...this.shown.get(target) };
  }
}

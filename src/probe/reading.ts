import type { ApiModel } from '../openapi/load.js';
import { readingFacts } from '../openapi/reading-facts.js';
import type { Exchange } from '../openapi/types.js';

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

/** A point's value when one round's answers disagree (saldo-user and history with different content types). */
export const MIXED = 'mixed';

/** The probe's history page shows its order only with this many distinct dates (a shuffled page of 4 looks
 * sorted 1 time in 12; over the window below, a false change needs 6 such rounds of 10). */
const ORDER_MIN_DATES = 4;

/** Rounds a point's shown value is chosen over, and the share a new value needs to replace it. */
export const READING_WINDOW = 10;

export type PointValues = Partial<Record<ProbePoint, string>>;

const isPoint = (k: string): k is ProbePoint => (PROBE_READING_POINTS as readonly string[]).includes(k);

/** Adds one value of a point to a round's values: a second, different value makes it `mixed`. */
function add(into: PointValues, point: ProbePoint, value: string): void {
  const before = into[point];
  into[point] = before === undefined || before === value ? value : MIXED;
}

/** What one answer shows of the points. */
export function answerPoints(api: ApiModel, ex: Exchange, apiKey: string, extraFields: boolean): PointValues {
  const out: PointValues = {};
  for (const f of readingFacts(api, ex, apiKey, extraFields, { orderMinDates: ORDER_MIN_DATES }))
    if (isPoint(f.knob)) add(out, f.knob, f.value);
  return out;
}

/** What one round's answers show together. */
export function roundPoints(answers: readonly (PointValues | undefined)[]): PointValues {
  const out: PointValues = {};
  for (const a of answers)
    for (const [point, value] of Object.entries(a ?? {})) if (isPoint(point)) add(out, point, value);
  return out;
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

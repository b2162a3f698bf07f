import { KNOB_NAMES, KNOBS, type Knob, REFERENCE, type Reading } from './legal.js';

/**
 * A covering set of readings: every value of every knob at least once, and every pair of values of two
 * knobs together at least once, for the knobs in `paired` (greedy, deterministic). Knobs outside `paired`
 * take each of their other values once, on top of the reference.
 */
export function coveringReadings(paired: readonly Knob[] = KNOB_NAMES): Reading[] {
  const knobs = paired;
  const vals = (k: Knob): readonly string[] => KNOBS[k].values;
  const key = (a: Knob, va: string, b: Knob, vb: string): string => `${a}=${va}&${b}=${vb}`;
  const uncovered = new Set<string>();
  for (let i = 0; i < knobs.length; i++)
    for (let j = i + 1; j < knobs.length; j++) {
      const a = knobs[i] as Knob;
      const b = knobs[j] as Knob;
      for (const va of vals(a)) for (const vb of vals(b)) uncovered.add(key(a, va, b, vb));
    }
  const rows: Reading[] = [];
  while (uncovered.size > 0) {
    const row: Partial<Reading> = {};
    for (const [i, k] of knobs.entries()) {
      let best = vals(k)[0] ?? '';
      let bestScore = -1;
      for (const v of vals(k)) {
        let score = 0;
        for (let j = 0; j < i; j++) {
          const p = knobs[j] as Knob;
          if (uncovered.has(key(p, row[p] ?? '', k, v))) score += 10;
        }
        // Tie-break: the value with the most pairs still open with knobs yet to be chosen.
        for (let j = i + 1; j < knobs.length; j++) {
          const q = knobs[j] as Knob;
          for (const vq of vals(q)) if (uncovered.has(key(k, v, q, vq))) score += 1 / 100;
        }
        if (score > bestScore) {
          bestScore = score;
          best = v;
        }
      }
      row[k] = best;
    }
    for (let i = 0; i < knobs.length; i++)
      for (let j = i + 1; j < knobs.length; j++) {
        const a = knobs[i] as Knob;
        const b = knobs[j] as Knob;
        uncovered.delete(key(a, row[a] ?? '', b, row[b] ?? ''));
      }
    rows.push({ ...REFERENCE, ...row });
  }
  for (const k of KNOB_NAMES.filter((x) => !knobs.includes(x))) {
    for (const v of vals(k).slice(1)) rows.push({ ...REFERENCE, [k]: v });
  }
  return rows;
}

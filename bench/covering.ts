import covertable from 'covertable';
import { KNOB_NAMES, KNOBS, type Knob, REFERENCE, type Reading } from '../src/simulator/legal.ts';

/**
 * covertable's hash sorter orders the pairs by this seed, deterministically: the same readings on every machine.
 * Of the seeds tried for today's knobs ('', 'a', 'b', '1', '2', '3'), '2' covers every pair in the fewest
 * readings (21; the greedy search written here before took 26), and each reading is a whole gate run in the tests.
 */
const SEED = '2';

/**
 * A covering set of readings (covertable, pairwise): every pair of values of two knobs in `paired` together at
 * least once, so every value of each too. Knobs outside `paired` take each of their other values once, on top of
 * the reference.
 */
export function coveringReadings(paired: readonly Knob[] = KNOB_NAMES): Reading[] {
  const factors = Object.fromEntries(paired.map((k) => [k, [...KNOBS[k].values]]));
  const rows: Reading[] = covertable.make(factors, { seed: SEED }).map((row) => ({ ...REFERENCE, ...row }));
  for (const k of KNOB_NAMES.filter((x) => !paired.includes(x)))
    for (const v of KNOBS[k].values.slice(1)) rows.push({ ...REFERENCE, [k]: v });
  return rows;
}

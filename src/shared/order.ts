// Orders that are the same on every machine and every run: a tie is broken by the value itself, compared by
// code unit (a locale's collation differs between machines; the order answers came in differs between runs).

/** Compares two strings by code unit. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** For `[value, count]` entries: the most counted first, a tie by value. */
export function mostFirst(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || byCodeUnit(a[0], b[0]);
}

// An order that is the same on every machine: a locale's collation differs between machines.

/** Compares two strings by code unit. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// The closest known name to a mistyped one: for commands, flags and config-file keys alike. No imports, so the
// CLI's entry can load it before any command's code.

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  return (d[a.length] as number[])[b.length] as number;
}

/** The closest of `names` to `name`, when close enough to be what was meant. */
export function didYouMean(name: string, names: readonly string[]): string | undefined {
  const best = names
    .map((n) => ({ n, d: distance(name, n) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(x.n.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  return best?.n;
}

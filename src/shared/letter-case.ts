/** A text with the letter case of every letter swapped (`Trx-a1` -> `tRX-A1`); text without letters is unchanged. */
export function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** Whether a text holds a letter that has an upper and a lower case. */
export function hasCasedLetter(text: string): boolean {
  return [...text].some((c) => c.toLowerCase() !== c.toUpperCase());
}

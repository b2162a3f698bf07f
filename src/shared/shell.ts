/** A word as a POSIX shell reads it back unchanged: as it is when it holds no special character, else quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./~#-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

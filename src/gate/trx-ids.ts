import { randomBytes } from 'node:crypto';

/** A new run id for transaction IDs: `H2H` + time + random, so two runs never collide. */
export function newRunId(): string {
  return `H2H${Date.now().toString(36).toUpperCase()}${randomBytes(2).toString('hex').toUpperCase()}`;
}

/** Transaction IDs `<prefix>-0001`, `<prefix>-0002`, ...: one factory per process keeps them unique. */
export function trxFactory(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(4, '0')}`;
}

/** A seed for the generated cases, when none is given. */
export function newSeed(): number {
  return randomBytes(4).readUInt32BE(0) & 0x7fffffff;
}

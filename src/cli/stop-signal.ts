/** The signals that stop a serving command (h2h mock, h2h probe): each exits 0 after closing what it serves. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * The first SIGINT or SIGTERM, listened for from this call on. Call it before the command says where it serves: a
 * supervisor (or a test) may send SIGTERM the moment it reads that line, and a signal that finds no listener takes
 * Node's default, death by the signal (no exit code), before the command closes anything. A docs-run test met that
 * under load, once.
 */
export function stopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const on = (signal: StopSignal) => (): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = on('SIGINT');
    const onTerm = on('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

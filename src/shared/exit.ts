/**
 * Exit codes of every command, in one home: the CLI returns them, the gate's summary maps a run's outcome to them.
 * 0 the contract holds, 1 a clause is violated, 2 usage or configuration error, 3 internal error, 4 inconclusive.
 */
export const EXIT = { OK: 0, VIOLATED: 1, USAGE: 2, INTERNAL: 3, INCONCLUSIVE: 4 } as const;

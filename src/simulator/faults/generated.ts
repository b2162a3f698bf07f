import type { Fault } from './fault.js';

/**
 * Faults that only generated cases catch (the hand-written scenarios pass them): each breaks its clause at an
 * input or a timing the catalogue's fixed values never reach.
 */
export const GENERATED_FAULTS = [
  {
    name: 'msisdn-07-accepted',
    clause: 'INV-3',
    description: 'an msisdn beginning with 07 is taken as a member number (the coverage phase tries every prefix)',
  },
  {
    name: 'auth-key-any-case',
    clause: 'AUTH-1',
    description: 'the key is compared in any letter case (a near miss of the key gets in)',
  },
  {
    name: 'q-whole-values',
    clause: 'HIS-5',
    description: 'q finds a record only by a whole number, ID or product, not by a part of one',
  },
  {
    name: 'inflight-duplicate',
    clause: 'INV-5',
    description: 'a trx_id is seen as used only once its invite is recorded: concurrent duplicates both go through',
  },
] as const satisfies readonly Fault[];

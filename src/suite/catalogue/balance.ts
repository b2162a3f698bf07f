import type { Spec } from '../../spec/load.js';
import type { Scenario } from '../scenario.js';
import { successScenarios } from './success.js';

/** The balance area: BAL-1 on both methods and every name of api_key (BAL-2 goes with the invites). */
export function balanceScenarios(spec: Spec): Scenario[] {
  return successScenarios(spec, 'saldo-user', 'balance');
}

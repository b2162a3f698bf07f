import type { ApiModel } from '../../openapi/load.js';
import type { Scenario } from '../scenario.js';
import { successScenarios } from './success.js';

/** The balance area: BAL-1 on both methods and every name of api_key (BAL-2 goes with the invites). */
export function balanceScenarios(api: ApiModel): Scenario[] {
  return successScenarios(api, 'saldo-user', 'balance');
}

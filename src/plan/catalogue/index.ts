import type { ApiModel } from '../../openapi/load.js';
import { READ_ONLY_ENDPOINTS } from '../../openapi/types.js';
import type { Scenario } from '../scenario.js';
import { authScenarios } from './auth.js';
import { balanceScenarios } from './balance.js';
import { bodyScenarios } from './bodies.js';
import { conflictScenarios } from './conflicts.js';
import { envelopeScenarios } from './envelope.js';
import { generatedScenarios } from './generator-scenarios.js';
import { historyScenarios } from './history.js';
import { inviteScenarios } from './invite.js';
import { kindScenarios } from './kinds.js';
import { lookupScenarios } from './lookup.js';
import { negativeScenarios } from './negative.js';
import { readingScenarios } from './reading.js';

/** Every scenario of the gate, area by area (each area is a file here and a Playwright file in suites/). */
export function buildCatalogue(api: ApiModel): Scenario[] {
  return [
    ...READ_ONLY_ENDPOINTS.flatMap((e) => envelopeScenarios(api, e)),
    ...READ_ONLY_ENDPOINTS.flatMap((e) => authScenarios(e)),
    ...balanceScenarios(api),
    ...bodyScenarios(),
    ...historyScenarios(api),
    ...lookupScenarios(api),
    ...kindScenarios(api),
    ...negativeScenarios(),
    ...inviteScenarios(api),
    ...generatedScenarios(api),
    ...conflictScenarios(api),
    ...readingScenarios(api),
  ];
}

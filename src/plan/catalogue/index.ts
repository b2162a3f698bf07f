import type { ApiModel } from '../../openapi/load.js';
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
    ...(['saldo-user', 'history-transaksi', 'cek-trx-id'] as const).flatMap((e) => envelopeScenarios(api, e)),
    ...(['saldo-user', 'history-transaksi', 'cek-trx-id'] as const).flatMap((e) => authScenarios(e)),
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

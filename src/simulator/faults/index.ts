// The faults of the simulator, one table per group (a file each), and the one list of them all.
import { BOUNDARY_FAULTS } from './boundary.js';
import { CONTRACT_FAULTS } from './contract.js';
import { CROSSING_FAULTS } from './crossing.js';
import type { Fault } from './fault.js';
import { GENERATED_FAULTS } from './generated.js';
import { INDEPENDENT_FAULTS } from './independent.js';
import { METHOD_FAULTS } from './method.js';
import { ROLE_FAULTS } from './role.js';
import { TRANSPORT_FAULTS } from './transport.js';

export { BOUNDARY_FAULTS } from './boundary.js';
export { CONTRACT_FAULTS } from './contract.js';
export { CROSSING_FAULTS } from './crossing.js';
export type { Fault, RewriteContext } from './fault.js';
export { GENERATED_FAULTS } from './generated.js';
export { INDEPENDENT_FAULTS } from './independent.js';
export { METHOD_FAULTS } from './method.js';
export { ROLE_FAULTS } from './role.js';
export { TRANSPORT_FAULTS } from './transport.js';

export type ContractFaultName =
  | (typeof CONTRACT_FAULTS)[number]['name']
  | (typeof GENERATED_FAULTS)[number]['name']
  | (typeof BOUNDARY_FAULTS)[number]['name']
  | (typeof ROLE_FAULTS)[number]['name']
  | (typeof CROSSING_FAULTS)[number]['name']
  | (typeof INDEPENDENT_FAULTS)[number]['name']
  | (typeof METHOD_FAULTS)[number]['name'];
export type TransportFaultName = (typeof TRANSPORT_FAULTS)[number]['name'];
export type FaultName = ContractFaultName | TransportFaultName;

/**
 * The faults that each break their own clauses (and those their words name, `also`): what the mutation self-test
 * runs and docs/simulator.md lists by clause. A method fault breaks a method whole, a transport fault no clause.
 */
export const CLAUSE_FAULTS: readonly Fault[] = [
  ...CONTRACT_FAULTS,
  ...GENERATED_FAULTS,
  ...BOUNDARY_FAULTS,
  ...ROLE_FAULTS,
  ...CROSSING_FAULTS,
  ...INDEPENDENT_FAULTS,
];

export const FAULTS: readonly Fault[] = [...CLAUSE_FAULTS, ...METHOD_FAULTS, ...TRANSPORT_FAULTS];

export function isFaultName(name: string): name is FaultName {
  return FAULTS.some((f) => f.name === name);
}

export function faultNamed(name: FaultName): Fault {
  return FAULTS.find((f) => f.name === name) as Fault;
}

/** The active fault and its parameter. */
export interface FaultSetting {
  name: FaultName;
  /** Milliseconds for `latency`, `slow-drip` and `outage`. */
  ms?: number;
}

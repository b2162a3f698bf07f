import type { ParamInfo } from '../../openapi/types.js';
import { type RoleSeed, type RoleValue, roleValues } from './roles.js';

/**
 * The adversary as data: one row per operator, each making value classes of a parameter from a seed (a valid
 * value). A row says what it applies to (every parameter, or a role) and how it makes its values; the coverage
 * phase sends each value under every name of every parameter the row applies to, by every method that can carry
 * it, in the parameter's place on its endpoint (a lookup, a filter, a search, a write). What the answer must be is
 * the clauses' to say (demands.ts, judge-case.ts), never a row's.
 */
export interface Operator {
  name: string;
  /** Whether the row makes values for this parameter. */
  appliesTo(param: ParamInfo): boolean;
  /** Its values for one seed. */
  values(seed: RoleSeed, param: ParamInfo): RoleValue[];
}

/** Values only a JSON body carries as they are (a query string holds text): POST alone. */
const BODY_ONLY = ['POST'] as const;

/**
 * Every other JSON type in place of a parameter's value: a number (the value's own when it is one in text), a
 * boolean, null, an array holding the value, an object holding it. A provider that coerces one (`["akrab"]` read as
 * `akrab`, `{"$ne": ""}` read as a query) answers what no caller sent.
 */
function otherJsonTypes(seed: RoleSeed): RoleValue[] {
  const v = seed.value;
  const asNumber = /^-?\d{1,15}$/.test(v) ? Number(v) : undefined;
  return [
    ...(asNumber !== undefined ? [{ value: asNumber, label: 'as a JSON number', methods: BODY_ONLY }] : []),
    { value: 1, label: 'the JSON number 1', methods: BODY_ONLY },
    { value: true, label: 'the JSON true', methods: BODY_ONLY },
    { value: false, label: 'the JSON false', methods: BODY_ONLY },
    { value: [v], label: 'in a JSON array', methods: BODY_ONLY },
    { value: [v, v], label: 'twice in a JSON array', methods: BODY_ONLY },
    { value: { value: v }, label: 'in a JSON object', methods: BODY_ONLY },
    { value: { $ne: '' }, label: 'a query operator object', methods: BODY_ONLY },
  ];
}

/**
 * Every other JSON type for every parameter, by POST (a query string carries text only): a number, true, false, the
 * value in an array, twice in an array, in an object, a query operator object. Where a clause refuses the value the
 * case must be refused (INV-3 for a number: "anything but digits" holds no digits in an array; INV-4 for a kind:
 * a provider that coerces `["akrab"]` to `akrab` charges an invite no caller sent); elsewhere every answer in the
 * envelope is legal. The key's near misses take it too (a key of another type is a wrong key, in every reading).
 * A mock serving a learned reading answers them as the provider did (its word per value shape; fidelity in
 * docs/benchmarks.md, held at 99 % or more by test/fidelity.test.ts).
 */
export const OTHER_JSON_TYPES: Operator = {
  name: 'other JSON types',
  appliesTo: () => true,
  // A key in an array or an object is still the caller's key, no near miss of it: the key takes the others.
  values: (seed, param) =>
    otherJsonTypes(seed).filter((v) => param.role !== 'secret' || !JSON.stringify(v.value).includes(seed.value)),
};

/** The operators, in the order their values go out. Adding one is adding a row here. */
export const OPERATORS: readonly Operator[] = [
  {
    name: 'role classes',
    appliesTo: () => true,
    values: (seed, param) => roleValues(param.role, seed),
  },
  OTHER_JSON_TYPES,
];

/** Every operator's values for one parameter and seed, the first of equal values kept. */
export function operatorValues(
  param: ParamInfo,
  seed: RoleSeed,
  operators: readonly Operator[] = OPERATORS,
): RoleValue[] {
  const out = new Map<string, RoleValue>();
  for (const op of operators)
    if (op.appliesTo(param))
      for (const v of op.values(seed, param)) {
        const key = JSON.stringify(v.value);
        if (!out.has(key)) out.set(key, v);
      }
  return [...out.values()];
}

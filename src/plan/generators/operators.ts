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
 * Every other JSON type for every parameter. The key's near misses take it (a key of another type is a wrong key,
 * in every reading), and the parameters whose clauses refuse it take it (OTHER_JSON_TYPES_REFUSED); it is not yet
 * a row of OPERATORS for the rest: providers word "a value of another type" with one word of their own for every
 * parameter (INVALID_TYPE, invalid_parameter), a kind of refusal the provider's reading has no place for yet, so a
 * mock serving a learned reading answered those requests in other words (fidelity 91.7 to 98.4 % with the row for
 * every parameter, 99.4 to 99.8 % without). It joins OPERATORS with that kind (issue 40).
 */
export const OTHER_JSON_TYPES: Operator = {
  name: 'other JSON types',
  appliesTo: () => true,
  // A key in an array or an object is still the caller's key, no near miss of it: the key takes the others.
  values: (seed, param) =>
    otherJsonTypes(seed).filter((v) => param.role !== 'secret' || !JSON.stringify(v.value).includes(seed.value)),
};

/**
 * Other JSON types where a clause says they must be refused: a number (INV-3: "anything but digits" holds no
 * digits in an array) and a kind (INV-4: "a kind other than akrab or circle"). A provider that coerces
 * `["akrab"]` to `akrab` charges an invite no caller sent. Every other parameter takes the row above once the
 * reading has a kind of refusal for a value of another type.
 */
export const OTHER_JSON_TYPES_REFUSED: Operator = {
  name: 'other JSON types where a clause refuses them',
  appliesTo: (param) => param.role === 'phone' || param.role === 'enum',
  values: (seed, param) => OTHER_JSON_TYPES.values(seed, param),
};

/** The operators, in the order their values go out. Adding one is adding a row here. */
export const OPERATORS: readonly Operator[] = [
  {
    name: 'role classes',
    appliesTo: () => true,
    values: (seed, param) => roleValues(param.role, seed),
  },
  OTHER_JSON_TYPES_REFUSED,
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

// What a fault is: the one shape of every row of the fault tables (one file per group, faults/index.ts lists them).
import type { ClauseId, Endpoint, Method, Params } from '../../openapi/types.js';

/** What an answer rewrite sees besides the body: the request, its aliases folded into canonical names. */
export interface RewriteContext {
  endpoint: Endpoint;
  method: Method;
  params: Readonly<Record<string, unknown>>;
  /** The answer's status word as the business rules gave it, before the reading reworded it. */
  status: unknown;
}

/** A named way for the simulator to break the contract, or the transport, on purpose. */
export interface Fault {
  name: string;
  /** The clause this fault breaks; absent for transport faults. */
  clause?: ClauseId;
  /**
   * Clauses the same breach breaks too, by their own words (a history filter alias that is ignored breaks ENV-3
   * and the filter's own clause): the mutation self-test expects exactly `clause` and these.
   */
  also?: readonly ClauseId[];
  description: string;
  /**
   * Rewrites the request before the business rules see it (names as sent); `names` gives every name of a
   * canonical parameter of the endpoint, from openapi.yaml's x-aliases.
   */
  request?: (
    raw: Params,
    endpoint: Endpoint,
    names: (canonical: string) => readonly string[],
    method: Method,
  ) => Params;
  /** Rewrites a successful answer's body in place, after the business rules. */
  answer?: (body: Record<string, unknown>, ctx: RewriteContext) => void;
  /** Rewrites a refusal's body in place. */
  refusal?: (body: Record<string, unknown>, ctx: RewriteContext) => void;
}

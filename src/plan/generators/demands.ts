import type { ClauseId, Endpoint } from '../../openapi/types.js';

/**
 * INV-3's own words: an msisdn that does not begin with 08 or 62, or holds anything but (ASCII) digits. A JSON
 * number is judged by its digits; any other JSON type (a boolean, an array, an object) holds no digits at all.
 */
export function inv3Refuses(msisdn: unknown): boolean {
  if (typeof msisdn !== 'string' && typeof msisdn !== 'number') return true;
  const s = String(msisdn);
  return !/^(08|62)/.test(s) || !/^[0-9]+$/.test(s);
}

/**
 * The clause that says a request must be refused because of one parameter's value, or undefined when no clause
 * does (then the provider may refuse or accept it, and an accepted answer is judged by the clauses that apply).
 * Only the clauses speak here, never openapi.yaml's assumed lengths and patterns.
 */
export function refusalDemand(endpoint: Endpoint, param: string, value: unknown): ClauseId | undefined {
  // JSON null is no value: a provider may read it as absent.
  const missing = value === undefined || value === '' || value === null;
  if (param === 'api_key') return missing ? 'AUTH-1' : undefined;
  if (endpoint !== 'invite-member') return undefined;
  switch (param) {
    case 'trx_id':
    case 'product_code':
      return missing ? 'INV-4' : undefined;
    case 'msisdn':
      return missing ? 'INV-4' : inv3Refuses(value) ? 'INV-3' : undefined;
    case 'kind':
      // kind is optional: sent empty, it is as good as absent (a provider may read it either way); any other
      // value but akrab or circle, a space or a case variant included, is "a kind other than akrab or circle".
      return !missing && value !== 'akrab' && value !== 'circle' ? 'INV-4' : undefined;
    default:
      return undefined;
  }
}

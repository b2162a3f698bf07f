import { ajvErrorsToFindings } from '../openapi/ajv-errors.js';
import { bodyOf } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import type { ClauseId, Exchange, Finding } from '../openapi/types.js';
import { show } from '../shared/jsonpath.js';

/** Where a finding happened: endpoint, method and the alias names the request used. */
export function where(api: ApiModel, ex: Exchange): Pick<Finding, 'endpoint' | 'method' | 'aliases'> {
  const folded = api.foldRequest(ex.endpoint, ex.params);
  const aliases = Object.entries(folded.sentAs).flatMap(([canonical, names]) => names.filter((n) => n !== canonical));
  return { endpoint: ex.endpoint, method: ex.method, ...(aliases.length ? { aliases } : {}) };
}

export function finding(
  api: ApiModel,
  clause: ClauseId,
  ex: Exchange,
  path: string,
  expected: string,
  actual: unknown,
  message?: string,
): Finding {
  const act = typeof actual === 'string' && actual.startsWith('(') ? actual : show(actual);
  return {
    clause,
    ...where(api, ex),
    path,
    expected,
    actual: act,
    message: message ?? `${path}: expected ${expected}, got ${act}`,
    // A body sent as it is is the request's input: the finding says which (its parameters show none).
    ...(ex.sentBody ? { input: `body ${ex.sentBody.contentType}: ${show(ex.sentBody.text.slice(0, 60))}` } : {}),
  };
}

/**
 * The request's value of a canonical parameter, whichever alias carried it; undefined when it went as another JSON
 * type than text or a number (an array, an object, a boolean): the clauses speak of a value S, N or D, and a
 * provider may read such a value as absent, refuse it, or take what it holds.
 */
export function param(api: ApiModel, ex: Exchange, name: string): unknown {
  const folded = api.foldRequest(ex.endpoint, ex.params);
  const as = folded.sentAs[name]?.[0];
  const sent = ex.method === 'POST' && as !== undefined ? ex.params[as] : undefined;
  return sent === undefined || typeof sent === 'string' || typeof sent === 'number' ? folded.params[name] : undefined;
}

/** The clauses whose own words name the envelope's `status SUCCESS`. */
const STATUS_CLAUSES: readonly ClauseId[] = ['BAL-1', 'INV-1'];

/**
 * The success shape every read clause starts from: a JSON object with `ok` true that validates against the
 * endpoint's result schema. Findings are filed under `clause`.
 */
export function expectSuccess(api: ApiModel, clause: ClauseId, ex: Exchange): Finding[] {
  const body = bodyOf(ex);
  if (!body) {
    return [finding(api, clause, ex, '$', 'a JSON object', ex.bodyText.slice(0, 80) || '(empty body)')];
  }
  if (body.ok !== true) {
    return [
      finding(
        api,
        clause,
        ex,
        '$.ok',
        'true',
        body.ok,
        `expected a successful call, got ok=${show(body.ok)} status=${show(body.status)}`,
      ),
    ];
  }
  const errors = api.successErrors(ex.endpoint, body);
  // The envelope's status is ENV-1's and ENV-4's, and the clauses that name it (BAL-1, INV-1: "status SUCCESS").
  const found = ajvErrorsToFindings(errors, clause, ex, body).filter(
    (f) => f.path !== '$.status' || STATUS_CLAUSES.includes(clause),
  );
  const alias = where(api, ex).aliases;
  return alias ? found.map((f) => ({ ...f, aliases: alias })) : found;
}

/**
 * A request known to be bad must be refused: `ok` true is a finding under `clause`. An answer without the
 * envelope's boolean `ok` tells no refusal from a success: that is ENV-1's breach alone.
 */
export function mustBeRefused(api: ApiModel, clause: ClauseId, ex: Exchange): Finding[] {
  const ok = bodyOf(ex)?.ok;
  return ok === true ? [finding(api, clause, ex, '$.ok', 'false (refused)', ok)] : [];
}

/** Where a finding happened, as every report writes it: `history-transaksi POST via tanggal`. */
export function findingPlace(f: { endpoint: string; method?: string; aliases?: readonly string[] }): string {
  return [f.endpoint, f.method, f.aliases?.length ? `via ${f.aliases.join(',')}` : ''].filter(Boolean).join(' ');
}

/** What a finding says, as every report writes it: `$.data[0].date: expected ..., got ...`. */
export function findingDetail(f: { path?: string; expected?: string; actual?: string }): string {
  return `${f.path}: expected ${f.expected}, got ${f.actual}`;
}

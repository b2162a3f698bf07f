import { answerClauses, judgeAnswer } from '../checks/judge.js';
import { loadApiModel } from '../openapi/load.js';
import { ENDPOINTS, type Exchange, isEndpoint, type Method, type Params } from '../openapi/types.js';
import { learnSecrets, redactValue } from '../redact.js';
import { readHead, UsageError } from '../shared/config-file.js';
import { readJson } from '../shared/json.js';
import { get } from '../shared/settings.js';
import { type Command, EXIT } from './command.js';
import { formatFindings } from './format.js';

/** A captured exchange: the response body alone, or request and response together. */
interface Capture {
  request?: { method?: Method; params?: Params };
  response: { status?: number; body: unknown };
  /** Why the body was not read (nested too deep). */
  problem?: string;
}

/**
 * A captured file, read up to the cap (a longer one, /dev/zero say, is refused before it fills memory) and by
 * the one bounded JSON reader: a file nested deeper than the toolkit reads is an answer that breaks ENV-1 (its
 * `bodyProblem`), not a crash.
 */
function readCapture(path: string, cap: number): Capture {
  const head = readHead(path, cap, 'FILE');
  if (head.more) throw new UsageError(`${path}: over ${cap} bytes (--body-cap): not a captured answer read whole`);
  const read = readJson(head.bytes.toString('utf8'));
  if (read.problem !== undefined && read.kind === 'depth')
    return { response: { body: undefined }, problem: read.problem };
  if (read.problem !== undefined)
    throw new UsageError(`${path} is not valid JSON: ${read.problem.replace(/^not JSON: /, '')}`);
  const json = read.value;
  const obj = json as Record<string, unknown> | null;
  if (obj && typeof obj === 'object' && !Array.isArray(obj) && 'response' in obj && !('ok' in obj)) {
    const response = obj.response as Record<string, unknown> | null;
    if (!response || typeof response !== 'object' || !('body' in response)) {
      throw new UsageError(`${path}: "response" must be an object with a "body"`);
    }
    const request = (obj.request ?? undefined) as Capture['request'];
    if (request?.method !== undefined && request.method !== 'GET' && request.method !== 'POST') {
      throw new UsageError(`${path}: request.method must be GET or POST`);
    }
    return { request, response: { status: Number(response.status ?? 200), body: response.body } };
  }
  return { response: { body: json } };
}

export const validate: Command = {
  name: 'validate',
  about: `ENDPOINT is one of ${ENDPOINTS.join(', ')}. FILE.json is the response body, or
{"request": {"method": "GET", "params": {...}}, "response": {"status": 200, "body": {...}}} so that the
clauses that compare with the request (HIS-2..4, TRX-1, INV-1, INV-2) apply too. Without --known-status, refusal
statuses are never drift.`,
  positionals: { usage: 'ENDPOINT FILE.json', range: [2, 2] },
  async run(settings, io) {
    const [endpoint = '', file = ''] = settings.positionals;
    if (!isEndpoint(endpoint)) throw new UsageError(`unknown endpoint '${endpoint}'; one of: ${ENDPOINTS.join(', ')}`);
    const api = loadApiModel();
    const cap = readCapture(file, get.num(settings, 'body-cap'));
    // A key in the captured request is hidden wherever the answer or a finding repeats it.
    learnSecrets(cap.request);
    const exchange: Exchange = {
      endpoint,
      method: cap.request?.method ?? 'POST',
      params: cap.request?.params ?? {},
      url: '',
      httpStatus: cap.response.status ?? 200,
      contentType: 'application/json',
      bodyText: cap.problem ? '' : (JSON.stringify(cap.response.body) ?? ''),
      body: cap.response.body,
      ...(cap.problem ? { bodyProblem: cap.problem } : {}),
      durationMs: 0,
    };
    const findings = judgeAnswer(api, exchange);
    const known = get.list(settings, 'known-status');
    const drift = cap.problem ? [] : api.drift(endpoint, cap.response.body, known ? { knownStatuses: known } : {});
    const failed = findings.length > 0 || (get.bool(settings, 'strict') === true && drift.length > 0);
    if (get.bool(settings, 'json')) {
      io.out(
        JSON.stringify(
          redactValue({ endpoint, clauses: answerClauses(api, endpoint), findings, drift, failed }),
          null,
          2,
        ),
      );
    } else {
      io.out(formatFindings(findings, drift, `${endpoint}: checked ${answerClauses(api, endpoint).join(', ')}`));
    }
    return failed ? EXIT.VIOLATED : EXIT.OK;
  },
};

import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import { qOccursIn } from '../../checks/filters.js';
import { his5Judges } from '../../checks/his-5.js';
import { TransportError } from '../../client/transport.js';
import type { ApiModel } from '../../openapi/load.js';
import type { Endpoint, Exchange, Method, Params } from '../../openapi/types.js';
import { NotSent } from '../../target/invite-ledger.js';
import { RateLimited } from '../../target/send-policy.js';
import type { HistoryRecord } from '../../target/target.js';
import { compareLimit, READ_ONLY_PRODUCT, testNumber } from '../sampling.js';
import type { ScenarioContext } from '../scenario.js';
import type { GeneratedCase } from './cases.js';
import { inv3Refuses, refusalDemand } from './demands.js';
import { judgeCase } from './judge-case.js';
import { boundaryValues } from './values.js';

/** A record keeps the date filters of `f` (each taken from a record, so they are well-formed). */
function keeps(r: HistoryRecord, f: { date?: string; month?: string; year?: string }): boolean {
  return (
    (f.date === undefined || r.date === f.date) &&
    (f.month === undefined || r.date?.slice(5, 7) === f.month) &&
    (f.year === undefined || r.date?.slice(0, 4) === f.year)
  );
}

/** One random combination of history filters, values taken from the target's own records. */
export interface HistoryInput {
  method: Method;
  /** The record every filter takes its value from, unless it names another (`from`): most filters then match. */
  record: number;
  date?: { from?: number; name: string };
  month?: { from?: number; name: string };
  year?: { from?: number; name: string };
  q?: {
    from?: number;
    field: 'trx_id' | 'member_number' | 'manager_number';
    start: number;
    length: number;
    name: string;
  };
}

/**
 * History properties: random combinations of date, month, year and q, their values from the target's records,
 * q a proper part of a number (7 digits at least) or of a transaction ID (8 characters at least: no product
 * code holds one), each by a random name. HIS-3 (every filter at once) and HIS-4 are judged on the answer, and
 * HIS-5 for every known record that keeps the filters, when the answer is complete.
 */
export function historyArbitrary(api: ApiModel, records: readonly HistoryRecord[]): fc.Arbitrary<HistoryInput> {
  const index = fc.nat({ max: Math.max(0, records.length - 1) });
  // One filter in four takes its value from another record than the others (combinations that may match nothing).
  const from = fc.option(index, { nil: undefined, freq: 4 });
  const named = (canonical: string) =>
    fc.option(fc.record({ from, name: fc.constantFrom(...api.namesOf('history-transaksi', canonical)) }), {
      nil: undefined,
    });
  return fc.record({
    method: fc.constantFrom<Method>('GET', 'POST'),
    record: index,
    date: named('date'),
    month: named('month'),
    year: named('year'),
    q: fc.option(
      fc.record({
        from,
        field: fc.constantFrom('trx_id' as const, 'member_number' as const, 'manager_number' as const),
        start: fc.nat({ max: 12 }),
        length: fc.integer({ min: 7, max: 20 }),
        name: fc.constantFrom(...api.namesOf('history-transaksi', 'q')),
      }),
      { nil: undefined },
    ),
  });
}

/** The case of one history input. */
export function historyCase(ctx: ScenarioContext, records: readonly HistoryRecord[], t: HistoryInput): GeneratedCase {
  const rec = (i: number | undefined): HistoryRecord => records[i ?? t.record] ?? records[0] ?? {};
  const params: Params = { api_key: ctx.target.apiKey, limit: compareLimit(ctx) };
  const f: { date?: string; month?: string; year?: string } = {};
  const labels: string[] = [];
  if (t.date) {
    f.date = rec(t.date.from).date;
    params[t.date.name] = f.date;
    labels.push(`${t.date.name}=<a record's date>`);
  }
  if (t.month) {
    f.month = rec(t.month.from).date?.slice(5, 7);
    params[t.month.name] = f.month;
    labels.push(`${t.month.name}=<a record's month>`);
  }
  if (t.year) {
    f.year = rec(t.year.from).date?.slice(0, 4);
    params[t.year.name] = f.year;
    labels.push(`${t.year.name}=<a record's year>`);
  }
  let q: string | undefined;
  if (t.q) {
    const whole = String(rec(t.q.from)[t.q.field] ?? '');
    const min = t.q.field === 'trx_id' ? 8 : 7;
    // A part, never the whole value (the hand-written scenarios send whole values): a q that finds only whole
    // values is HIS-5's breach, and only a part shows it.
    const length = Math.min(whole.length > min ? whole.length - 1 : whole.length, Math.max(min, t.q.length));
    const start = Math.min(t.q.start, Math.max(0, whole.length - length));
    q = whole.slice(start, start + length);
    params[t.q.name] = q;
    labels.push(`${t.q.name}=<${length} characters of a ${t.q.field}>`);
  }
  const expectedRecords = his5Judges(Object.keys(f))
    ? records.filter((r) => keeps(r, f) && (q === undefined || qOccursIn(r, q, 'must')))
    : [];
  return {
    phase: 'history',
    endpoint: 'history-transaksi',
    method: t.method,
    params,
    label: labels.join(' & ') || 'no filter',
    ...(expectedRecords.length ? { expectedRecords } : {}),
  };
}

/** A random phase input: for each parameter, absent or a name and a value. */
export type RandomInput = { method: Method; params: Record<string, { name: string; value: unknown } | undefined> };

/** Values of one parameter for the random phase: valid ones from its schema, its boundary values, and junk. */
function valueArbitrary(api: ApiModel, endpoint: Endpoint, name: string, sample: unknown): fc.Arbitrary<unknown> {
  const schema = api.operation(endpoint).params.find((p) => p.name === name)?.schema as OpenAPIV3_1.SchemaObject;
  // Values both methods carry: the method is drawn apart (a JSON array in a query string is a name given twice).
  const boundary = boundaryValues(api, endpoint, name, sample)
    .filter((b) => !b.methods)
    .map((b) => b.value);
  const junk = fc.string({ maxLength: 12 });
  let valid: fc.Arbitrary<unknown>;
  if (schema.enum) valid = fc.constantFrom(...schema.enum);
  else if (schema.type === 'integer') valid = fc.integer({ min: Number(schema.minimum ?? 0), max: 100 });
  else if (schema.format === 'date')
    valid = fc
      .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  else if (schema.pattern) valid = fc.stringMatching(new RegExp(schema.pattern));
  else valid = fc.string({ minLength: schema.minLength ?? 0, maxLength: schema.maxLength ?? 20 });
  return fc.oneof(valid, boundary.length ? fc.constantFrom(...boundary) : valid, junk);
}

/**
 * The random phase of one endpoint: requests built from its request schema, each parameter absent or by a
 * random name with a valid, boundary or junk value; the key always the caller's. On invite-member the guards
 * (trx_id, product_code) are not varied, and an msisdn goes out only if it is a configured test number or one
 * that INV-3 says must be refused.
 */
export function randomArbitrary(api: ApiModel, ctx: ScenarioContext, endpoint: Endpoint): fc.Arbitrary<RandomInput> {
  const varied = api
    .operation(endpoint)
    .params.filter(
      (p) => p.name !== 'api_key' && !(endpoint === 'invite-member' && ['trx_id', 'product_code'].includes(p.name)),
    );
  const r = ctx.data.record;
  const sample: Record<string, unknown> = {
    msisdn: testNumber(ctx),
    kind: ctx.target.kind ?? 'akrab',
    name: 'H2H',
    trx_id: ctx.data.knownTrxId,
    limit: compareLimit(ctx),
    q: r?.trx_id,
    date: r?.date,
    month: r?.date?.slice(5, 7),
    year: r?.date?.slice(0, 4),
  };
  const entries = varied.map((p) => {
    const one = fc.record({
      name: fc.constantFrom(p.name, ...p.aliases),
      value: valueArbitrary(api, endpoint, p.name, sample[p.name]),
    });
    return [p.name, p.required ? one : fc.option(one, { nil: undefined })] as const;
  });
  return fc.record({
    method: fc.constantFrom<Method>('GET', 'POST'),
    params: fc.record(Object.fromEntries(entries)) as fc.Arbitrary<RandomInput['params']>,
  });
}

/** The case of one random input (see randomArbitrary for the money rules on invites). */
export function randomCase(ctx: ScenarioContext, endpoint: Endpoint, t: RandomInput): GeneratedCase {
  const sent: Params = { api_key: ctx.target.apiKey };
  const labels: string[] = [];
  let refuse: GeneratedCase['refuse'];
  for (const [canonical, v] of Object.entries(t.params)) {
    if (!v) continue;
    let value = v.value;
    if (endpoint === 'invite-member' && canonical === 'msisdn' && !inv3Refuses(value)) value = testNumber(ctx);
    sent[v.name] = value;
    labels.push(`${v.name}=${JSON.stringify(value)?.slice(0, 40)}`);
    refuse ??= refusalDemand(endpoint, canonical, value);
  }
  if (endpoint === 'invite-member' && !t.params.msisdn) {
    refuse ??= 'INV-4';
    labels.push('no msisdn');
  }
  const base: GeneratedCase = {
    phase: 'random',
    endpoint,
    method: t.method,
    params: sent,
    label: labels.join(' & ') || 'no parameter but the key',
    ...(refuse ? { refuse } : {}),
  };
  if (endpoint !== 'invite-member') return base;
  const live = ctx.target.allowWrites && refuse !== undefined;
  return {
    ...base,
    params: {
      ...sent,
      trx_id: live ? ctx.newTrxId() : (ctx.data.knownTrxId ?? ''),
      product_code: live ? (ctx.target.product ?? '') : READ_ONLY_PRODUCT,
    },
    intent: live && refuse ? { expect: 'refusal', clause: refuse } : { expect: 'refusal', clause: 'used-trx' },
  };
}

/** Sends a generated case: an invite through the ledger, anything else as a read. */
export function sendCase(ctx: ScenarioContext, c: GeneratedCase, quiet = false): Promise<Exchange> {
  if (c.endpoint === 'invite-member')
    return ctx.invite(c.method, c.params, c.intent ?? { expect: 'refusal', clause: 'used-trx' }, { quiet });
  return ctx.send(c.endpoint, c.method, c.params, { quiet });
}

/**
 * Runs a property with fast-check: `runs` inputs from `seed`, each sent and judged (judgeCase); a failing one
 * is shrunk to a minimal case, and only that one is handed to the gate (`ctx.generated`), so a failure reads
 * as one case, not as every step of the shrinking. A transport failure, the invite cap or a rate limit stops
 * the property and is reported as such, never shrunk.
 */
export async function checkProperty<T>(
  api: ApiModel,
  ctx: ScenarioContext,
  arb: fc.Arbitrary<T>,
  build: (t: T) => GeneratedCase,
  runs: number,
): Promise<{ runs: number; failed: boolean }> {
  const seen = new Map<string, { c: GeneratedCase; ex: Exchange }>();
  let stopped: unknown;
  const details = await fc.check(
    fc.asyncProperty(arb, async (t) => {
      if (stopped) return true;
      const c = build(t);
      let ex: Exchange;
      try {
        ex = await sendCase(ctx, c, true);
      } catch (err) {
        if (err instanceof TransportError || err instanceof NotSent || err instanceof RateLimited) {
          stopped = err;
          return true;
        }
        throw err;
      }
      const verdict = judgeCase(api, c, ex);
      if (verdict.findings.length === 0) {
        ctx.noteJudged(verdict.judged);
        return true;
      }
      seen.set(JSON.stringify(t), { c, ex });
      return false;
    }),
    { seed: ctx.generation.seed, numRuns: runs },
  );
  if (details.failed && details.counterexample) {
    const minimal = seen.get(JSON.stringify(details.counterexample[0]));
    if (minimal) ctx.generated(minimal.c, minimal.ex);
    else if (details.errorInstance) throw details.errorInstance;
  }
  if (stopped) throw stopped;
  return { runs: details.numRuns, failed: details.failed };
}

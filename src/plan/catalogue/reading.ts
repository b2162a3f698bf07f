import { type Body, recordOf, records } from '../../openapi/exchange.js';
import type { ApiModel } from '../../openapi/load.js';
import type { Exchange, Params } from '../../openapi/types.js';
import { refusedFact } from '../../reading/index.js';
import { hasCasedLetter, swapCase } from '../../shared/letter-case.js';
import { showExchange } from '../observations.js';
import type { Judgement, Scenario, ScenarioContext } from '../scenario.js';

/** A limit above any maximum a provider is likely to set: a page cut below it shows the maximum. */
export const LARGE_LIMIT = 1000;

/**
 * The read-only requests that show what the provider does where its description is silent and no clause asks
 * (reading.ts learns the rest from the answers the run gets anyway): a page without limit (the default), a page
 * with a large limit (the maximum), and a record looked for with its trx_id in another letter case (q-case).
 * Its answers are judged like every answer; it judges nothing of its own but HIS-2, on the large page.
 */
export function readingScenarios(api: ApiModel): Scenario[] {
  return [
    {
      title:
        "HIS-2 history-transaksi GET: the provider's reading, default and largest limit, letter case of q (observed, never a violation)",
      clauses: ['HIS-2'],
      area: 'history',
      endpoint: 'history-transaksi',
      methods: ['GET'],
      aliases: [],
      requests: 24,
      run: (ctx) => readProvider(api, ctx),
    },
  ];
}

/** A history page of the account, with these parameters besides the key. */
type Page = (extra?: Params) => Promise<Exchange>;
/** Records a reading fact, with the answer that shows it. */
type Note = (knob: string, value: string, ex?: Exchange) => void;
/** The largest limit the provider takes, when it refuses a larger one, with the answer that refused. */
type RefusedAbove = { max: number; ex: Exchange };

/** The run of the reading scenario: the default and largest limit, then the letter case of q. */
async function readProvider(api: ApiModel, ctx: ScenarioContext): Promise<Judgement[]> {
  const key = { api_key: ctx.target.apiKey };
  const known = ctx.data.records ?? [];
  const fact: Note = (knob, value, ex) =>
    ctx.observe({ point: 'reading', knob, value, ...(ex ? { evidence: showExchange(ex) } : {}) });
  const page: Page = (extra = {}) => ctx.send('history-transaksi', 'GET', { ...key, ...extra });
  const plainEx = await page();
  fact('history-at-start', known.length ? 'some' : 'empty', plainEx);
  const plain = records(plainEx);
  const { largeEx, large, refusedAbove } = await largestPage(page, plain);
  if (!plain || !large) {
    fact('default-limit?', 'the history pages were refused');
    fact('max-limit?', 'the history pages were refused');
  } else if (!large.length) {
    fact('default-limit?', 'the account has no records');
    fact('max-limit?', 'the account has no records');
  } else {
    const { cut, refused } = refusedAbove ? { cut: undefined, refused: false } : await findCut(ctx, page, large);
    maxLimitFacts(api, ctx, fact, { large, largeEx, refusedAbove, cut, refused });
    // Without limit: fewer than the large page is the default; as many, every record (up to any maximum).
    if (plain.length < large.length) fact('default-limit', String(plain.length), plainEx);
    else if (cut || large.length > 20) fact('default-limit', 'all', plainEx);
    else fact('default-limit?', `not reached: the account shows ${large.length} records, and all came without limit`);
  }
  // A trx_id without a cased letter (digits, or a boundary case the run invited) reads the same in every case.
  const record = known.find((r) => typeof r.trx_id === 'string' && hasCasedLetter(r.trx_id));
  if (!record?.trx_id) fact('q-case?', 'no record with letters in its trx_id to search in another case');
  else {
    const ex = await page({ q: swapCase(record.trx_id), limit: refusedAbove?.max ?? LARGE_LIMIT });
    const found = records(ex);
    if (found) fact('q-case', recordOf(ex, record.trx_id) ? 'any' : 'exact', ex);
    else fact('q-case?', 'the search in another letter case was refused');
  }
  return [];
}

/**
 * The page with a large limit. A large limit refused (and a small one not): the provider refuses a limit above its
 * maximum. The largest it takes is found by halving, in a few requests, and its page stands for the large one.
 */
async function largestPage(
  page: Page,
  plain: Body[] | undefined,
): Promise<{ largeEx: Exchange; large: Body[] | undefined; refusedAbove?: RefusedAbove }> {
  const largeEx = await page({ limit: LARGE_LIMIT });
  const large = records(largeEx);
  if (!plain || large) return { largeEx, large };
  let lo = 1;
  let hi = LARGE_LIMIT;
  let refusedEx = largeEx;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const ex = await page({ limit: mid });
    if (records(ex)) lo = mid;
    else {
      hi = mid;
      refusedEx = ex;
    }
  }
  if (!records(await page({ limit: lo }))) return { largeEx, large };
  const taken = await page({ limit: lo });
  return { largeEx: taken, large: records(taken), refusedAbove: { max: lo, ex: refusedEx } };
}

/**
 * Is the large page the account's every record, or cut at a maximum? A record of one of its dates, months or years
 * that it lacks (not one of the run's own invites, which may land meanwhile) proves a cut. A sorted page is cut
 * after its last date: its dates, then months, then years are asked from the last (from the oldest, for a page in
 * no order of dates).
 */
async function findCut(
  ctx: ScenarioContext,
  page: Page,
  large: Body[],
): Promise<{ cut: Exchange | undefined; refused: boolean }> {
  const onPage = new Set(large.map((r) => r.trx_id));
  const own = new Set(ctx.ownInvites().map((i) => i.trxId));
  const last = <T>(xs: T[], n: number): T[] => [...new Set(xs.reverse())].slice(0, n);
  const listed = large.map((r) => String(r.date ?? '')).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d));
  // A page in no order of dates (a shuffled history) could lack a record of any date: the oldest are asked, in
  // one order of their own, so that a run asks the same whatever order the page came in.
  const sorted = (up: boolean): boolean =>
    listed.every((d, i) => {
      const before = listed[i - 1] ?? d;
      return up ? d >= before : d <= before;
    });
  const dates = sorted(true) || sorted(false) ? listed : [...listed].sort().reverse();
  const filters: Params[] = [
    ...last([...dates], 3).map((date) => ({ date })),
    ...last(
      dates.map((d) => d.slice(0, 7)),
      2,
    ).map((ym) => ({ year: ym.slice(0, 4), month: ym.slice(5, 7) })),
    ...last(
      dates.map((d) => d.slice(0, 4)),
      2,
    ).map((year) => ({ year })),
  ];
  let refused = false;
  for (const filter of filters) {
    const ex = await page({ ...filter, limit: LARGE_LIMIT });
    const rs = records(ex);
    if (!rs) refused = true;
    else if (await lacksOld(page, rs, onPage, own)) return { cut: ex, refused };
  }
  return { cut: undefined, refused };
}

/**
 * Whether records of a filtered page are missing from the large page because it was cut: each one it lacks is
 * asked for again on a new large page first, since another client of the account (a shared account) may have
 * invited meanwhile; a record the new large page shows is new, not cut.
 */
async function lacksOld(page: Page, rs: Body[], onPage: Set<unknown>, own: ReadonlySet<string>): Promise<boolean> {
  const missing = rs.filter((r) => !onPage.has(r.trx_id) && !own.has(String(r.trx_id)));
  if (!missing.length) return false;
  for (const r of records(await page({ limit: LARGE_LIMIT })) ?? []) onPage.add(r.trx_id);
  return missing.some((r) => !onPage.has(r.trx_id));
}

/** The facts of the maximum limit: the one refused above, the one a cut page shows, or why none shows. */
function maxLimitFacts(
  api: ApiModel,
  ctx: ScenarioContext,
  fact: Note,
  seen: { large: Body[]; largeEx: Exchange; refusedAbove?: RefusedAbove; cut?: Exchange; refused: boolean },
): void {
  const { large, refusedAbove } = seen;
  if (refusedAbove) {
    fact('max-limit', `${refusedAbove.max}:refuse`, refusedAbove.ex);
    // The refusal of a limit above the maximum is a kind of its own (the provider's word for it).
    const refused = refusedFact(api, refusedAbove.ex, ['limit-over-maximum']);
    if (refused) ctx.observe({ ...refused, evidence: showExchange(refusedAbove.ex) });
  } else if (seen.cut) fact('max-limit', String(large.length), seen.largeEx);
  else
    fact(
      'max-limit?',
      seen.refused
        ? 'the filtered pages that would tell were refused'
        : `not reached: limit=${LARGE_LIMIT} gave ${large.length} records, and no page of one of their dates, months or years showed more (a maximum above that cannot be seen)`,
    );
}

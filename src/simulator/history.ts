import { to62 } from '../openapi/numbers.js';
import { type Answer, success } from './answer.js';
import type { Account, SimBooks, Txn } from './books.js';
import { limitsOf } from './legal.js';

/** history-transaksi: an account's records, filtered by date, month, year and q, in the reading's order and limit. */
export class SimHistory {
  constructor(private readonly books: SimBooks) {}

  answer(account: Account, p: Record<string, unknown>): Answer {
    const { books } = this;
    const now = performance.now();
    let recs = books.txns.filter(
      (t) =>
        t.account === account.id &&
        t.visibleAt <= now &&
        // Fault `history-skips-punctuated-trx`: the run's invites (made after the fixture) with punctuation.
        !(books.faultOn('history-skips-punctuated-trx') && t.seq > books.fixtureSeq && /[^A-Za-z0-9]/.test(t.trxId)) &&
        // Fault `today-misses-new`: a date filter on today misses the invites made since the start.
        !(books.faultOn('today-misses-new') && t.seq > books.fixtureSeq && p.date === t.date),
    );
    const keeps = [
      p.date !== undefined &&
        ((t: Txn) =>
          t.date === p.date ||
          // Fault `date-spills-to-day-before`.
          (books.faultOn('date-spills-to-day-before') &&
            String(p.date).endsWith('-01') &&
            t.date === new Date(Date.parse(`${String(p.date)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10))),
      p.month !== undefined && ((t: Txn) => t.date.slice(5, 7) === p.month),
      p.year !== undefined &&
        ((t: Txn) =>
          t.date.slice(0, 4) === p.year ||
          // Fault `year-give-or-take-one`.
          (books.faultOn('year-give-or-take-one') && Math.abs(Number(t.date.slice(0, 4)) - Number(p.year)) === 1)),
    ].filter((f): f is (t: Txn) => boolean => f !== false);
    // Fault `date-filters-ignored`.
    if (!books.faultOn('date-filters-ignored')) recs = recs.filter((t) => keeps.every((k) => k(t)));
    // Fault `q-ignored`.
    if (p.q !== undefined && !books.faultOn('q-ignored')) recs = recs.filter((t) => this.matches(t, String(p.q)));
    recs = this.ordered(recs);
    const { defaultLimit, maxLimit } = limitsOf(books.reading);
    // Fault `limit-ignored`.
    const asked = p.limit === undefined ? defaultLimit : Number(p.limit);
    // Faults `limit-ignored`, `limit-zero-all`.
    let limit =
      books.faultOn('limit-ignored') || (books.faultOn('limit-zero-all') && asked === 0)
        ? Number.POSITIVE_INFINITY
        : Math.min(asked, maxLimit);
    // Fault `limit-equal-drops-last`: a filtered query whose limit equals its matches answers one fewer.
    const filtered = ['q', 'date', 'month', 'year'].some((k) => p[k] !== undefined);
    if (books.faultOn('limit-equal-drops-last') && filtered && limit === recs.length && limit > 0) limit -= 1;
    const extra = books.reading.extra === 'everywhere';
    // Fault `limit-over-from-10`: a limit of 10 or more gets one record more.
    const over = books.faultOn('limit-over-from-10') && p.limit !== undefined && Number(p.limit) >= 10 ? 1 : 0;
    const data = recs.slice(0, limit + over).map((t) => ({
      trx_id: t.trxId,
      manager_number: t.manager,
      member_number: t.member,
      date: t.date,
      ...(extra ? { product_code: t.product } : {}),
    }));
    return success({ data });
  }

  /**
   * Whether q occurs in a record: numbers in either form, the trx_id, the product's code or name, in any letter
   * case (the `q-case=exact` reading: letter for letter).
   */
  private matches(t: Txn, q: string): boolean {
    const { books } = this;
    const pattern = this.qPattern(q);
    if (pattern)
      return [t.manager, `0${t.manager.slice(2)}`, t.member, `0${t.member.slice(2)}`, t.trxId, t.product].some((v) =>
        pattern.test(v),
      );
    if (books.reading['q-case'] === 'exact')
      return [t.manager, `0${t.manager.slice(2)}`, t.member, `0${t.member.slice(2)}`, t.trxId, t.product].some((v) =>
        v.includes(q),
      );
    const s = q.toLowerCase();
    const s62 = /^0\d+$/.test(s) ? to62(s) : s;
    const product = books.products.find((x) => x.code === t.product);
    // Fault `q-misses-manager`.
    const managers = books.faultOn('q-misses-manager') ? [] : [t.manager, `0${t.manager.slice(2)}`];
    const numbers = [...managers, t.member, `0${t.member.slice(2)}`];
    // Fault `q-whole-values`: only a whole value matches.
    if (books.faultOn('q-whole-values'))
      return [...numbers, t.trxId.toLowerCase(), t.product.toLowerCase()].some((v) => v === s || v === s62);
    return (
      numbers.some((n) => n.includes(s) || n.includes(s62)) ||
      // Fault `q-misses-trx-id`.
      (!books.faultOn('q-misses-trx-id') && t.trxId.toLowerCase().includes(s)) ||
      t.product.toLowerCase().includes(s) ||
      (product?.name.toLowerCase().includes(s) ?? false) ||
      // Fault `q-matches-name`.
      (books.faultOn('q-matches-name') && (t.name?.toLowerCase().includes(s) ?? false))
    );
  }

  /**
   * Faults `q-like-pattern` (`%` any run, `_` any one character) and `q-regex` (`.` any character): q read as a
   * pattern, in any letter case; undefined when no such fault is on or q has no pattern character.
   */
  private qPattern(q: string): RegExp | undefined {
    const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (this.books.faultOn('q-like-pattern') && /[%_]/.test(q))
      return new RegExp([...q].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : literal(c))).join(''), 'i');
    if (this.books.faultOn('q-regex') && q.includes('.'))
      return new RegExp([...q].map((c) => (c === '.' ? '.' : literal(c))).join(''), 'i');
    return undefined;
  }

  /** History order under the `order` knob. */
  private ordered(recs: Txn[]): Txn[] {
    const newest = [...recs].sort((a, b) => (a.date === b.date ? b.seq - a.seq : a.date < b.date ? 1 : -1));
    if (this.books.reading.order === 'oldest') return newest.reverse();
    if (this.books.reading.order === 'shuffled') {
      for (let i = newest.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [newest[i], newest[j]] = [newest[j] as Txn, newest[i] as Txn];
      }
    }
    return newest;
  }
}

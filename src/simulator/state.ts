import type { ApiModel } from '../openapi/load.js';
import { to62 } from '../openapi/numbers.js';
import type { Endpoint, Method, Params } from '../openapi/types.js';
import { type Answer, invalidStatus, refuse } from './answer.js';
import { type FaultName, type FaultSetting, faultNamed } from './faults.js';
import type { Fixture } from './fixtures.js';
import { invitesCovered, lagMsOf, limitsOf, REFERENCE, type Reading } from './legal.js';

interface Account {
  id: string;
  apiKey: string;
  saldo: number;
}

interface Manager {
  number: string;
  account: string;
  kind: 'akrab' | 'circle';
  slots: number;
  /** member number (62-form) -> slot number */
  members: Map<string, number>;
}

interface Txn {
  seq: number;
  trxId: string;
  account: string;
  manager: string;
  member: string;
  product: string;
  date: string;
  /** SUCCESS for every invite; the fixture may hold others (FAILED, PENDING, REFUNDED). */
  status: string;
  /** The member's name, as the invite gave it. */
  name?: string;
  /** performance.now() from when history and cek-trx-id show it (the `lag` knob). */
  visibleAt: number;
}

export interface Handled {
  answer: Answer;
  /** The request passed every check that does not depend on money or slots: it could have spent money. */
  couldSucceed: boolean;
  /** The request's parameters, aliases folded into canonical names. */
  params: Record<string, unknown>;
}

/** The member the `neighbour` reading's other client invites with its n-th order: a new one each time. */
const neighbourMember = (n: number): string => `628139${String(n).padStart(7, '0')}`;

/** A balance above 2^31 (the `saldo=big` reading) is the fixture's plus this. */
const BIG = 2 ** 32;

/**
 * The simulator's accounts, products, managers and history, and the API's rules over them, under one reading
 * of what the provider leaves open. All of one request's work is synchronous, so two requests never
 * interleave: a trx_id is checked and recorded in one step, which is what makes concurrent duplicates create
 * one transaction.
 */
export class SimState {
  fault: FaultSetting | null = null;
  /** A value the provider was seen to accept though the document's schema refuses it (a learned reading). */
  accepts?: (endpoint: Endpoint, param: string, value: unknown) => boolean;
  private readonly accounts = new Map<string, Account>();
  private readonly byKey = new Map<string, Account>();
  private readonly products: Fixture['products'];
  private readonly managers: Manager[] = [];
  private readonly txns: Txn[] = [];
  private readonly byTrx = new Map<string, Txn>();
  private readonly roundRobin = new Map<string, number>();
  /** Invites between their checks and their charge: account + trx_id. */
  private readonly inFlight = new Set<string>();
  /** The `repeat=replay` reading: each trx_id's first invite (its parameters and its answer, maybe in flight). */
  private readonly firstInvites = new Map<string, { same: string; handled: Promise<Handled> }>();
  /** How long an invite's charge at the operator takes, in milliseconds. */
  chargeMs = 10;
  private seq = 0;
  /** The last sequence number of the fixture's own history: later transactions are the invites'. */
  private readonly fixtureSeq: number;
  private readonly suite: Fixture['suite'];
  private neighbourSeq = 0;

  constructor(
    private readonly api: ApiModel,
    fixture: Fixture,
    demoKey?: string,
    readonly reading: Reading = REFERENCE,
    /** The provider's day as a learned reading gives it (minutes from UTC): new transactions are dated by it. */
    private readonly dayOffsetMinutes = 0,
  ) {
    const suiteProduct = fixture.products.find((p) => p.code === fixture.suite.product);
    // The `balance` knob: the suite account's balance covers N invites of the suite's product.
    const covered = invitesCovered(reading);
    for (const a of fixture.accounts) {
      const apiKey = demoKey && a.id === fixture.suite.account ? demoKey : a.api_key;
      const base =
        covered !== undefined && a.id === fixture.suite.account && suiteProduct
          ? covered * suiteProduct.price
          : a.saldo + (reading.saldo === 'big' ? BIG : 0);
      const acct = { id: a.id, apiKey, saldo: base + (reading.saldo === 'fraction' ? 0.5 : 0) };
      this.accounts.set(a.id, acct);
      this.byKey.set(apiKey, acct);
    }
    this.products = fixture.products;
    this.suite = fixture.suite;
    for (const m of fixture.managers) this.managers.push({ ...m, members: new Map() });
    for (const h of fixture.history) {
      // The `balance=empty` reading: the suite account has no history at all.
      if (reading.balance === 'empty' && h.account === fixture.suite.account) continue;
      const manager = this.managers.find((m) => m.number === h.manager);
      if (manager && !manager.members.has(h.member)) manager.members.set(h.member, this.freeSlot(manager) ?? 0);
      this.record(
        {
          trxId: h.trx_id,
          account: h.account,
          manager: h.manager,
          member: h.member,
          product: h.product,
          date: h.date,
          status: h.status ?? 'SUCCESS',
        },
        0,
      );
    }
    this.fixtureSeq = this.seq;
  }

  /**
   * The `neighbour` reading: another client of the suite's account invites one of its own two members with its
   * own trx_id, through the same rules as every request (history grows, the balance drops). Its product is the
   * cheapest of a kind other than the suite's, so its charges never look like the suite's.
   */
  async neighbourInvite(): Promise<void> {
    const account = this.accounts.get(this.suite.account);
    const mine = this.products.find((p) => p.code === this.suite.product);
    // A balance of a few invites (the `balance` knob) is the run's to spend: the other client orders on an ample one.
    if (!account || this.reading.balance !== 'ample') return;
    // Products of another price, another kind first: the first with a free slot is the one it orders.
    const candidates = [...this.products]
      .filter((p) => p.price !== mine?.price)
      .sort((a, b) => Number(a.kind === mine?.kind) - Number(b.kind === mine?.kind) || a.price - b.price);
    this.neighbourSeq++;
    for (const product of candidates) {
      const done = await this.handle('invite-member', {
        api_key: account.apiKey,
        trx_id: `NB${this.neighbourSeq}X${Date.now().toString(36)}`,
        product_code: product.code,
        msisdn: neighbourMember(this.neighbourSeq),
      });
      if (done.answer.body.ok === true) {
        // Its member leaves the group again at once: the other client's work shows in history and the balance,
        // as on a shared account, without taking the slots the run's own invites need.
        const member = String((done.answer.body.detail as { member?: unknown } | undefined)?.member ?? '');
        for (const m of this.managers) m.members.delete(member);
        return;
      }
    }
  }

  /** Whether the named behaviour fault is on. */
  private faultOn(name: FaultName): boolean {
    return this.fault?.name === name;
  }

  /** The balance of an account, for tests and the request log. */
  saldo(accountId: string): number | undefined {
    return this.accounts.get(accountId)?.saldo;
  }

  /** Transactions of an account carrying a trx_id (more than one only under a fault). */
  transactions(accountId: string, trxId?: string): readonly Txn[] {
    return this.txns.filter((t) => t.account === accountId && (trxId === undefined || t.trxId === trxId));
  }

  /**
   * Answers one request. Only an invite waits (its charge at the operator, `chargeMs`): a trx_id in flight
   * counts as used, so concurrent duplicates still create one transaction.
   */
  async handle(endpoint: Endpoint, raw: Params, method: Method = 'POST'): Promise<Handled> {
    const rewrite = this.fault ? faultNamed(this.fault.name).request : undefined;
    const rewritten = rewrite ? rewrite(raw, endpoint, (c) => this.api.namesOf(endpoint, c), method) : raw;
    const folded = this.api.foldRequest(endpoint, this.oneNameEach(endpoint, rewritten));
    const p = folded.params;
    const no = (answer: Answer): Handled => ({ answer, couldSucceed: false, params: p });
    const byAlias = (param: string): boolean => !(folded.sentAs[param] ?? []).includes(param);
    const problems = folded.problems.filter(
      (q) =>
        !(q.code === 'invalid' && this.accepts?.(endpoint, q.param, p[q.param])) &&
        !(this.faultOn('msisdn-unchecked') && q.param === 'msisdn' && q.code === 'invalid') &&
        !(this.faultOn('kind-unchecked') && q.param === 'kind') &&
        // Fault `missing-trx-with-name`.
        !(
          this.faultOn('missing-trx-with-name') &&
          q.param === 'trx_id' &&
          q.code === 'missing' &&
          p.name !== undefined
        ) &&
        // Fault `limit-zero-all`: limit 0 is read as no limit.
        !(this.faultOn('limit-zero-all') && q.param === 'limit' && Number(p.limit) === 0) &&
        // Fault `msisdn-07-accepted`; fault `msisdn-07-via-alias`: only under an alias of msisdn.
        !(
          (this.faultOn('msisdn-07-accepted') || (this.faultOn('msisdn-07-via-alias') && byAlias('msisdn'))) &&
          q.param === 'msisdn' &&
          /^07[0-9]{7,12}$/.test(String(p.msisdn))
        ),
    );
    const keyProblem = problems.find((q) => q.param === 'api_key');
    if (keyProblem?.code === 'conflict') return no(refuse('CONFLICTING_PARAMETER', keyProblem.message));
    if (keyProblem) return no(refuse('INVALID_API_KEY', `${keyProblem.message}: the api_key is missing or empty`));
    const account = this.authenticate(String(p.api_key));
    if (!account) return no(this.unknownKey(endpoint, p));
    const first = problems[0];
    if (first) {
      const status =
        first.code === 'missing'
          ? 'MISSING_PARAMETER'
          : first.code === 'conflict'
            ? 'CONFLICTING_PARAMETER'
            : invalidStatus(first.param);
      return no(refuse(status, problems.map((q) => q.message).join('; ')));
    }
    const yes = (answer: Answer): Handled => ({ answer, couldSucceed: true, params: p });
    switch (endpoint) {
      case 'saldo-user':
        return yes(success({ saldo: account.saldo }));
      case 'history-transaksi':
        return yes(this.history(account, p));
      case 'cek-trx-id':
        return yes(this.lookup(account, String(p.trx_id)));
      case 'invite-member':
        return this.invite(account, p, folded.sentAs);
    }
  }

  /**
   * The `conflict` knob: two names of one parameter with different values are refused (the fold finds the
   * conflict), or one of them is used: the canonical name's value, or the first alias's. A name repeated with
   * several values (a GET query) is still a conflict.
   */
  private oneNameEach(endpoint: Endpoint, raw: Params): Params {
    if (this.reading.conflict === 'refuse') return raw;
    const out: Params = { ...raw };
    for (const param of this.api.operation(endpoint).params) {
      const names = [param.name, ...param.aliases].filter((n) => Object.hasOwn(raw, n) && raw[n] !== undefined);
      if (names.length < 2 || new Set(names.map((n) => JSON.stringify(raw[n]))).size < 2) continue;
      const aliases = names.filter((n) => n !== param.name);
      const keep = this.reading.conflict === 'canonical' ? (names[0] as string) : (aliases[0] as string);
      for (const n of names) if (n !== keep) delete out[n];
    }
    return out;
  }

  /** The refusal of an unknown key. Fault `wrong-key-shows-record`: a lookup's refusal carries the asked record. */
  private unknownKey(endpoint: Endpoint, p: Record<string, unknown>): Answer {
    const answer = refuse('INVALID_API_KEY', 'The api_key is not known.');
    const txn = this.txns.find((t) => t.trxId === p.trx_id);
    if (this.faultOn('wrong-key-shows-record') && endpoint === 'cek-trx-id' && txn)
      answer.body.data = { trx_id: txn.trxId, status: txn.status };
    return answer;
  }

  /**
   * The account of a key. Fault `auth-any-key`: any key is the first account's. Fault `auth-key-any-case`: a
   * key that differs only in letter case is the same key.
   */
  private authenticate(key: string): Account | undefined {
    const account = this.byKey.get(this.keyAsRead(key));
    if (!account && this.faultOn('auth-any-key')) return this.byKey.values().next().value;
    if (!account && this.faultOn('auth-key-any-case'))
      return [...this.byKey].find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
    return account;
  }

  /**
   * The key as the simulator reads it: as sent. Fault `auth-key-trailing-newline`: a trailing line break is
   * stripped; fault `auth-key-decoded-twice`: percent-escapes are decoded once more.
   */
  private keyAsRead(key: string): string {
    if (this.faultOn('auth-key-trailing-newline')) return key.replace(/\r?\n$/, '');
    if (this.faultOn('auth-key-decoded-twice')) {
      try {
        return decodeURIComponent(key);
      } catch {
        return key;
      }
    }
    return key;
  }

  private history(account: Account, p: Record<string, unknown>): Answer {
    const now = performance.now();
    let recs = this.txns.filter(
      (t) =>
        t.account === account.id &&
        t.visibleAt <= now &&
        // Fault `history-skips-punctuated-trx`: the run's invites (made after the fixture) with punctuation.
        !(this.faultOn('history-skips-punctuated-trx') && t.seq > this.fixtureSeq && /[^A-Za-z0-9]/.test(t.trxId)) &&
        // Fault `today-misses-new`: a date filter on today misses the invites made since the start.
        !(this.faultOn('today-misses-new') && t.seq > this.fixtureSeq && p.date === t.date),
    );
    const keeps = [
      p.date !== undefined &&
        ((t: Txn) =>
          t.date === p.date ||
          // Fault `date-spills-to-day-before`.
          (this.faultOn('date-spills-to-day-before') &&
            String(p.date).endsWith('-01') &&
            t.date === new Date(Date.parse(`${String(p.date)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10))),
      p.month !== undefined && ((t: Txn) => t.date.slice(5, 7) === p.month),
      p.year !== undefined &&
        ((t: Txn) =>
          t.date.slice(0, 4) === p.year ||
          // Fault `year-give-or-take-one`.
          (this.faultOn('year-give-or-take-one') && Math.abs(Number(t.date.slice(0, 4)) - Number(p.year)) === 1)),
    ].filter((f): f is (t: Txn) => boolean => f !== false);
    // Fault `date-filters-ignored`.
    if (!this.faultOn('date-filters-ignored')) recs = recs.filter((t) => keeps.every((k) => k(t)));
    // Fault `q-ignored`.
    if (p.q !== undefined && !this.faultOn('q-ignored')) recs = recs.filter((t) => this.matches(t, String(p.q)));
    recs = this.ordered(recs);
    const { defaultLimit, maxLimit } = limitsOf(this.reading);
    // Fault `limit-ignored`.
    const asked = p.limit === undefined ? defaultLimit : Number(p.limit);
    // Faults `limit-ignored`, `limit-zero-all`.
    let limit =
      this.faultOn('limit-ignored') || (this.faultOn('limit-zero-all') && asked === 0)
        ? Number.POSITIVE_INFINITY
        : Math.min(asked, maxLimit);
    // Fault `limit-equal-drops-last`: a filtered query whose limit equals its matches answers one fewer.
    const filtered = ['q', 'date', 'month', 'year'].some((k) => p[k] !== undefined);
    if (this.faultOn('limit-equal-drops-last') && filtered && limit === recs.length && limit > 0) limit -= 1;
    const extra = this.reading.extra === 'everywhere';
    // Fault `limit-over-from-10`: a limit of 10 or more gets one record more.
    const over = this.faultOn('limit-over-from-10') && p.limit !== undefined && Number(p.limit) >= 10 ? 1 : 0;
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
    const pattern = this.qPattern(q);
    if (pattern)
      return [t.manager, `0${t.manager.slice(2)}`, t.member, `0${t.member.slice(2)}`, t.trxId, t.product].some((v) =>
        pattern.test(v),
      );
    if (this.reading['q-case'] === 'exact')
      return [t.manager, `0${t.manager.slice(2)}`, t.member, `0${t.member.slice(2)}`, t.trxId, t.product].some((v) =>
        v.includes(q),
      );
    const s = q.toLowerCase();
    const s62 = /^0\d+$/.test(s) ? to62(s) : s;
    const product = this.products.find((x) => x.code === t.product);
    // Fault `q-misses-manager`.
    const managers = this.faultOn('q-misses-manager') ? [] : [t.manager, `0${t.manager.slice(2)}`];
    const numbers = [...managers, t.member, `0${t.member.slice(2)}`];
    // Fault `q-whole-values`: only a whole value matches.
    if (this.faultOn('q-whole-values'))
      return [...numbers, t.trxId.toLowerCase(), t.product.toLowerCase()].some((v) => v === s || v === s62);
    return (
      numbers.some((n) => n.includes(s) || n.includes(s62)) ||
      // Fault `q-misses-trx-id`.
      (!this.faultOn('q-misses-trx-id') && t.trxId.toLowerCase().includes(s)) ||
      t.product.toLowerCase().includes(s) ||
      (product?.name.toLowerCase().includes(s) ?? false) ||
      // Fault `q-matches-name`.
      (this.faultOn('q-matches-name') && (t.name?.toLowerCase().includes(s) ?? false))
    );
  }

  /**
   * Faults `q-like-pattern` (`%` any run, `_` any one character) and `q-regex` (`.` any character): q read as a
   * pattern, in any letter case; undefined when no such fault is on or q has no pattern character.
   */
  private qPattern(q: string): RegExp | undefined {
    const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (this.faultOn('q-like-pattern') && /[%_]/.test(q))
      return new RegExp([...q].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : literal(c))).join(''), 'i');
    if (this.faultOn('q-regex') && q.includes('.'))
      return new RegExp([...q].map((c) => (c === '.' ? '.' : literal(c))).join(''), 'i');
    return undefined;
  }

  /** History order under the `order` knob. */
  private ordered(recs: Txn[]): Txn[] {
    const newest = [...recs].sort((a, b) => (a.date === b.date ? b.seq - a.seq : a.date < b.date ? 1 : -1));
    if (this.reading.order === 'oldest') return newest.reverse();
    if (this.reading.order === 'shuffled') {
      for (let i = newest.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [newest[i], newest[j]] = [newest[j] as Txn, newest[i] as Txn];
      }
    }
    return newest;
  }

  private lookup(account: Account, trxId: string): Answer {
    const txn = this.byTrx.get(`${account.id}\u0000${trxId}`) ?? this.lookalike(account, trxId);
    const visible = txn && txn.visibleAt <= performance.now() ? txn : undefined;
    // Fault `unknown-digits-found`: an unknown ID of digits only is read as a row number, and a record answers.
    const row = this.txns.filter((t) => t.account === account.id).at(-1);
    if (!visible && this.faultOn('unknown-digits-found') && /^[0-9]+$/.test(trxId) && row)
      return success({ data: { trx_id: row.trxId, status: row.status } });
    // Fault `lookup-failed-refused`: a transaction that did not succeed is not found.
    if (visible && visible.status !== 'SUCCESS' && this.faultOn('lookup-failed-refused'))
      return refuse('TRX_NOT_FOUND', `No transaction with trx_id ${trxId}.`);
    // Fault `lookup-refunded-list`: a kind only a lookup shows, answered in a shape of its own.
    if (visible?.status === 'REFUNDED' && this.faultOn('lookup-refunded-list'))
      return success({ data: [{ trx_id: visible.trxId, status: visible.status }] });
    // Fault `lookup-phantom`.
    if (!visible && !this.faultOn('lookup-phantom'))
      return refuse('TRX_NOT_FOUND', `No transaction with trx_id ${trxId}.`);
    return success({ data: { trx_id: visible?.trxId ?? trxId, status: visible?.status ?? 'SUCCESS' } });
  }

  /**
   * Fault `lookup-any-case`: an ID found in any letter case; fault `lookup-prefix-found`: an ID of 3 characters or
   * more found as the beginning of one. The record answers with its own ID.
   */
  private lookalike(account: Account, trxId: string): Txn | undefined {
    const mine = this.txns.filter((t) => t.account === account.id);
    if (this.faultOn('lookup-any-case')) return mine.find((t) => t.trxId.toLowerCase() === trxId.toLowerCase());
    if (this.faultOn('lookup-prefix-found') && trxId.length >= 3) return mine.find((t) => t.trxId.startsWith(trxId));
    return undefined;
  }

  private async invite(
    account: Account,
    p: Record<string, unknown>,
    sentAs: Record<string, string[]>,
  ): Promise<Handled> {
    const trxByAlias = !(sentAs.trx_id ?? []).includes('trx_id');
    // The `trx-id=alnum20` reading: a provider's own rule for transaction IDs.
    if (this.reading['trx-id'] === 'alnum20' && p.trx_id !== undefined && !/^[A-Za-z0-9]{1,20}$/.test(String(p.trx_id)))
      return {
        answer: refuse('INVALID_TRX_ID', 'trx_id must be 1 to 20 letters or digits.'),
        couldSucceed: false,
        params: p,
      };
    // Fault `missing-trx-with-name`: a made-up trx_id.
    const trxId = p.trx_id === undefined ? `AUTO-${this.seq + 1}` : String(p.trx_id);
    const key = `${account.id}\u0000${trxId}`;
    const no = (answer: Answer): Handled => ({ answer, couldSucceed: false, params: p });
    // Fault `duplicate-trx-accepted`; fault `inflight-duplicate`: a trx_id in flight is not seen as used; fault
    // `repeat-via-trxid`: a trx_id sent as `trxid` is never seen as used.
    const used =
      !(this.faultOn('repeat-via-trxid') && trxByAlias) &&
      (this.byTrx.has(key) || (this.inFlight.has(key) && !this.faultOn('inflight-duplicate')));
    // The `repeat=replay` reading: the same invite again gets its first answer, in flight or not, and no charge.
    const same = JSON.stringify([p.msisdn, p.product_code, p.kind ?? null, p.name ?? null]);
    const first = this.reading.repeat === 'replay' ? this.firstInvites.get(key) : undefined;
    if (used && first?.same === same && !this.faultOn('duplicate-trx-accepted'))
      return { ...(await first.handled), couldSucceed: false };
    if (used && !this.faultOn('duplicate-trx-accepted')) {
      return no(refuse('DUPLICATE_TRX_ID', `trx_id ${trxId} was already used.`));
    }
    const wanted = String(p.product_code).toLowerCase();
    const product = this.products.find((x) => x.code.toLowerCase() === wanted || x.name.toLowerCase() === wanted);
    if (!product) return no(refuse('UNKNOWN_PRODUCT', `No product with code or name ${String(p.product_code)}.`));
    // Fault `kind-unchecked` (an unknown kind was let through above).
    if (p.kind !== undefined && p.kind !== product.kind && !this.faultOn('kind-unchecked')) {
      return no(refuse('KIND_MISMATCH', `Product ${product.code} is of kind ${product.kind}, not ${String(p.kind)}.`));
    }
    const yes = (answer: Answer): Handled => ({ answer, couldSucceed: true, params: p });
    this.inFlight.add(key);
    const handled = (async () => {
      try {
        await new Promise((r) => setTimeout(r, this.chargeMs));
        // Fault `credit-via-code`; fault `credit-without-kind`.
        const credit =
          (this.faultOn('credit-via-code') && (sentAs.product_code ?? []).includes('code')) ||
          (this.faultOn('credit-without-kind') && p.kind === undefined);
        // Fault `alias-member-empty`.
        const blank = this.faultOn('alias-member-empty') && !(sentAs.msisdn ?? ['msisdn']).includes('msisdn');
        return yes(this.carryOut(account, p, trxId, product, { credit, blank }));
      } finally {
        this.inFlight.delete(key);
      }
    })();
    if (this.reading.repeat === 'replay') this.firstInvites.set(key, { same, handled });
    return handled;
  }

  /** The invite itself, in one synchronous step: balance, slot, charge, record. */
  private carryOut(
    account: Account,
    p: Record<string, unknown>,
    trxId: string,
    product: Fixture['products'][number],
    { credit = false, blank = false }: { credit?: boolean; blank?: boolean } = {},
  ): Answer {
    if (account.saldo < product.price) {
      return refuse('INSUFFICIENT_BALANCE', `Balance ${account.saldo} is below the price ${product.price}.`);
    }
    const member = to62(String(p.msisdn));
    const place = this.place(account, product.kind, member);
    if (!place) return refuse('NO_FREE_SLOT', `No ${product.kind} manager has a free slot.`);
    for (const m of this.managers) if (m.kind === product.kind && m.account === account.id) m.members.delete(member);
    place.manager.members.set(member, place.slot);
    // Fault `invite-credits-balance`.
    account.saldo += this.faultOn('invite-credits-balance') || credit ? product.price : -product.price;
    // Fault `invite-not-recorded`; fault `name-outside-latin1-unrecorded`.
    const latin1 = [...String(p.name ?? '')].every((c) => (c.codePointAt(0) ?? 0) <= 0xff);
    if (!this.faultOn('invite-not-recorded') && !(this.faultOn('name-outside-latin1-unrecorded') && !latin1)) {
      this.record(
        {
          // Fault `trx-trimmed-after-check`: the used-ID check saw the ID as sent; the store trims it.
          trxId: this.faultOn('trx-trimmed-after-check') ? trxId.trim() : trxId,
          account: account.id,
          manager: place.manager.number,
          // Fault `alias-member-empty`: a number that came under an alias is stored empty.
          member: blank ? '' : member,
          product: product.code,
          date: new Date(Date.now() + this.dayOffsetMinutes * 60_000).toISOString().slice(0, 10),
          status: 'SUCCESS',
          ...(typeof p.name === 'string' ? { name: p.name } : {}),
        },
        lagMsOf(this.reading),
      );
    }
    return success({
      message: `Member ${member} added to manager ${place.manager.number} (${product.kind}), slot ${place.slot}.`,
      trx_id: trxId,
      detail: { manager: place.manager.number, member, slot: String(place.slot) },
    });
  }

  /** Where an invite puts a member, under the `slot` knob. */
  private place(account: Account, kind: string, member: string): { manager: Manager; slot: number } | undefined {
    const mine = this.managers.filter((m) => m.account === account.id && m.kind === kind);
    const current = mine.find((m) => m.members.has(member));
    if (this.reading.slot === 'old' && current) return { manager: current, slot: current.members.get(member) ?? 0 };
    // The member leaves its old slot before it takes a new one.
    const withFree = mine.filter((m) => m === current || this.freeSlot(m) !== undefined);
    const free = (m: Manager): number | undefined => {
      if (m !== current) return this.freeSlot(m);
      const without = new Map(m.members);
      without.delete(member);
      return this.freeSlot({ ...m, members: without });
    };
    let manager: Manager | undefined;
    switch (this.reading.slot) {
      case 'round-robin': {
        const at = this.roundRobin.get(kind) ?? 0;
        for (let i = 0; i < mine.length && !manager; i++) {
          const m = mine[(at + i) % mine.length];
          if (m && free(m) !== undefined) {
            manager = m;
            this.roundRobin.set(kind, (at + i + 1) % mine.length);
          }
        }
        break;
      }
      case 'random':
        manager = withFree[Math.floor(Math.random() * withFree.length)];
        break;
      default:
        manager = mine.find((m) => free(m) !== undefined);
    }
    const slot = manager ? free(manager) : undefined;
    return manager && slot !== undefined ? { manager, slot } : undefined;
  }

  private freeSlot(m: Pick<Manager, 'members' | 'slots'>): number | undefined {
    const taken = new Set(m.members.values());
    for (let s = 1; s <= m.slots; s++) if (!taken.has(s)) return s;
    return undefined;
  }

  private record(t: Omit<Txn, 'seq' | 'visibleAt'>, lagMs: number): void {
    const txn: Txn = { ...t, seq: ++this.seq, visibleAt: performance.now() + lagMs };
    this.txns.push(txn);
    this.byTrx.set(`${t.account}\u0000${t.trxId}`, txn);
  }
}

function success(fields: Record<string, unknown>): Answer {
  return { http: 200, body: { ok: true, status: 'SUCCESS', ...fields } };
}

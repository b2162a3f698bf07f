import type { ApiModel } from '../openapi/load.js';
import type { Endpoint, Method, Params } from '../openapi/types.js';
import { SimAccounts } from './accounts.js';
import { type Answer, type Handled, invalidStatus, refuse, success } from './answer.js';
import { SimBooks, type Txn } from './books.js';
import { type FaultSetting, faultNamed } from './faults/index.js';
import type { Fixture } from './fixtures.js';
import { SimHistory } from './history.js';
import { SimInvites } from './invites.js';
import { REFERENCE, type Reading } from './legal.js';
import { SimLookups } from './lookups.js';

/** The member the `neighbour` reading's other client invites with its n-th order: a new one each time. */
const neighbourMember = (n: number): string => `628139${String(n).padStart(7, '0')}`;

/**
 * The simulator's accounts, products, managers and history (its books, books.ts), and the API's rules over them,
 * under one reading of what the provider leaves open: a request's way to its endpoint here, each endpoint's rules
 * in a part of its own (accounts.ts, history.ts, lookups.ts, invites.ts). All of one request's work is
 * synchronous, so two requests never interleave: a trx_id is checked and recorded in one step, which is what makes
 * concurrent duplicates create one transaction.
 */
export class SimState {
  /** A value the provider was seen to accept though the document's schema refuses it (a learned reading). */
  accepts?: (endpoint: Endpoint, param: string, value: unknown) => boolean;
  private readonly books: SimBooks;
  private readonly accounts: SimAccounts;
  private readonly history: SimHistory;
  private readonly lookups: SimLookups;
  private readonly invites: SimInvites;
  private neighbourSeq = 0;

  constructor(
    private readonly api: ApiModel,
    fixture: Fixture,
    demoKey?: string,
    readonly reading: Reading = REFERENCE,
    /** The provider's day as a learned reading gives it (minutes from UTC): new transactions are dated by it. */
    dayOffsetMinutes = 0,
  ) {
    this.books = new SimBooks(fixture, demoKey, reading);
    this.accounts = new SimAccounts(this.books);
    this.history = new SimHistory(this.books);
    this.lookups = new SimLookups(this.books);
    this.invites = new SimInvites(this.books, dayOffsetMinutes);
  }

  /** The fault the simulator runs under, if any. */
  get fault(): FaultSetting | null {
    return this.books.fault;
  }

  set fault(fault: FaultSetting | null) {
    this.books.fault = fault;
  }

  /**
   * The `neighbour` reading: another client of the suite's account invites one of its own two members with its
   * own trx_id, through the same rules as every request (history grows, the balance drops). Its product is the
   * cheapest of a kind other than the suite's, so its charges never look like the suite's.
   */
  async neighbourInvite(): Promise<void> {
    const { products, suite, managers } = this.books;
    const account = this.books.accounts.get(suite.account);
    const mine = products.find((p) => p.code === suite.product);
    // A balance of a few invites (the `balance` knob) is the run's to spend: the other client orders on an ample one.
    if (!account || this.reading.balance !== 'ample') return;
    // Products of another price, another kind first: the first with a free slot is the one it orders.
    const candidates = [...products]
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
        for (const m of managers) m.members.delete(member);
        return;
      }
    }
  }

  /** The balance of an account, for tests and the request log. */
  saldo(accountId: string): number | undefined {
    return this.books.accounts.get(accountId)?.saldo;
  }

  /** Transactions of an account carrying a trx_id (more than one only under a fault). */
  transactions(accountId: string, trxId?: string): readonly Txn[] {
    return this.books.txns.filter((t) => t.account === accountId && (trxId === undefined || t.trxId === trxId));
  }

  /**
   * Answers one request. Only an invite waits (its charge at the operator, `chargeMs`): a trx_id in flight
   * counts as used, so concurrent duplicates still create one transaction.
   */
  async handle(endpoint: Endpoint, raw: Params, method: Method = 'POST'): Promise<Handled> {
    const { books } = this;
    const rewrite = this.fault ? faultNamed(this.fault.name).request : undefined;
    const rewritten = rewrite ? rewrite(raw, endpoint, (c) => this.api.namesOf(endpoint, c), method) : raw;
    const folded = this.api.foldRequest(endpoint, this.oneNameEach(endpoint, rewritten));
    const p = folded.params;
    const no = (answer: Answer): Handled => ({ answer, couldSucceed: false, params: p });
    const byAlias = (param: string): boolean => !(folded.sentAs[param] ?? []).includes(param);
    const problems = folded.problems.filter(
      (q) =>
        !(q.code === 'invalid' && this.accepts?.(endpoint, q.param, p[q.param])) &&
        !(books.faultOn('msisdn-unchecked') && q.param === 'msisdn' && q.code === 'invalid') &&
        !(books.faultOn('kind-unchecked') && q.param === 'kind') &&
        // Fault `missing-trx-with-name`.
        !(
          books.faultOn('missing-trx-with-name') &&
          q.param === 'trx_id' &&
          q.code === 'missing' &&
          p.name !== undefined
        ) &&
        // Fault `limit-zero-all`: limit 0 is read as no limit.
        !(books.faultOn('limit-zero-all') && q.param === 'limit' && Number(p.limit) === 0) &&
        // Fault `msisdn-07-accepted`; fault `msisdn-07-via-alias`: only under an alias of msisdn.
        !(
          (books.faultOn('msisdn-07-accepted') || (books.faultOn('msisdn-07-via-alias') && byAlias('msisdn'))) &&
          q.param === 'msisdn' &&
          /^07[0-9]{7,12}$/.test(String(p.msisdn))
        ),
    );
    const keyProblem = problems.find((q) => q.param === 'api_key');
    if (keyProblem?.code === 'conflict') return no(refuse('CONFLICTING_PARAMETER', keyProblem.message));
    if (keyProblem) return no(refuse('INVALID_API_KEY', `${keyProblem.message}: the api_key is missing or empty`));
    const account = this.accounts.authenticate(String(p.api_key));
    if (!account) return no(this.accounts.unknownKey(endpoint, p));
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
        return yes(this.history.answer(account, p));
      case 'cek-trx-id':
        return yes(this.lookups.answer(account, String(p.trx_id)));
      case 'invite-member':
        return this.invites.invite(account, p, folded.sentAs);
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
}

import type { Spec } from '../spec/load.js';
import type { Endpoint, Method, Params } from '../spec/types.js';
import type { FaultName, FaultSetting } from './faults.js';
import type { Fixture } from './fixtures.js';

/** What the simulator answers: an HTTP status and a JSON body. */
export interface Answer {
  http: number;
  body: Record<string, unknown>;
}

/** How the refusals of the reference simulator map to HTTP status codes (the provider shows none). */
const HTTP_OF: Record<string, number> = {
  INVALID_API_KEY: 401,
  MISSING_PARAMETER: 400,
  CONFLICTING_PARAMETER: 400,
  MALFORMED_JSON: 400,
  UNKNOWN_PRODUCT: 422,
  KIND_MISMATCH: 422,
  DUPLICATE_TRX_ID: 409,
  NO_FREE_SLOT: 409,
  INSUFFICIENT_BALANCE: 402,
  TRX_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
};

/** A refusal envelope: `ok` false, a distinct status, a clear message. */
export function refuse(status: string, message: string): Answer {
  return { http: HTTP_OF[status] ?? 422, body: { ok: false, status, message } };
}

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
  status: 'SUCCESS';
}

export interface Handled {
  answer: Answer;
  /** The request passed every check that does not depend on money or slots: it could have spent money. */
  couldSucceed: boolean;
}

/** Default and maximum of `limit` in the reference simulator (the provider shows neither). */
export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 500;

const ALIASES_OF_FILTERS = ['search', 'nomor', 'tanggal', 'bulan', 'tahun'];

function to62(n: string): string {
  return n.startsWith('0') ? `62${n.slice(1)}` : n;
}

/**
 * The simulator's accounts, products, managers and history, and the API's rules over them. All of one
 * request's work is synchronous, so two requests never interleave: a trx_id is checked and recorded in one
 * step, which is what makes concurrent duplicates create one transaction.
 */
export class SimState {
  fault: FaultSetting | null = null;
  private readonly accounts = new Map<string, Account>();
  private readonly byKey = new Map<string, Account>();
  private readonly products: Fixture['products'];
  private readonly managers: Manager[] = [];
  private readonly txns: Txn[] = [];
  private readonly byTrx = new Map<string, Txn>();
  private seq = 0;

  constructor(
    private readonly spec: Spec,
    fixture: Fixture,
    demoKey?: string,
  ) {
    for (const a of fixture.accounts) {
      const apiKey = demoKey && a.id === fixture.suite.account ? demoKey : a.api_key;
      const acct = { id: a.id, apiKey, saldo: a.saldo };
      this.accounts.set(a.id, acct);
      this.byKey.set(apiKey, acct);
    }
    this.products = fixture.products;
    for (const m of fixture.managers) this.managers.push({ ...m, members: new Map() });
    for (const h of fixture.history) {
      const manager = this.managers.find((m) => m.number === h.manager);
      if (manager && !manager.members.has(h.member)) manager.members.set(h.member, this.freeSlot(manager) ?? 0);
      this.record({
        trxId: h.trx_id,
        account: h.account,
        manager: h.manager,
        member: h.member,
        product: h.product,
        date: h.date,
      });
    }
  }

  private on(name: FaultName): boolean {
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

  handle(endpoint: Endpoint, method: Method, raw: Params): Handled {
    let params = raw;
    if (endpoint === 'history-transaksi' && this.on('alias-ignored')) {
      params = Object.fromEntries(Object.entries(raw).filter(([k]) => !ALIASES_OF_FILTERS.includes(k)));
    }
    const folded = this.spec.foldRequest(endpoint, params);
    const problems = folded.problems.filter(
      (p) =>
        !(this.on('msisdn-unchecked') && p.param === 'msisdn') && !(this.on('kind-unchecked') && p.param === 'kind'),
    );
    const keyProblem = problems.find((p) => p.param === 'api_key');
    if (keyProblem?.code === 'conflict')
      return { answer: refuse('CONFLICTING_PARAMETER', keyProblem.message), couldSucceed: false };
    if (keyProblem)
      return {
        answer: refuse('INVALID_API_KEY', `${keyProblem.message}: the api_key is missing or empty`),
        couldSucceed: false,
      };
    const key = String(folded.params.api_key);
    let account = this.byKey.get(key);
    if (!account && this.on('auth-any-key')) account = this.byKey.values().next().value;
    if (!account) return { answer: refuse('INVALID_API_KEY', 'The api_key is not known.'), couldSucceed: false };
    const first = problems[0];
    if (first) {
      const status =
        first.code === 'missing'
          ? 'MISSING_PARAMETER'
          : first.code === 'conflict'
            ? 'CONFLICTING_PARAMETER'
            : `INVALID_${first.param.toUpperCase() || 'PARAMETER'}`;
      return { answer: refuse(status, problems.map((p) => p.message).join('; ')), couldSucceed: false };
    }
    const p = folded.params;
    switch (endpoint) {
      case 'saldo-user':
        return {
          answer: this.success({ saldo: this.on('saldo-as-string') ? String(account.saldo) : account.saldo }),
          couldSucceed: true,
        };
      case 'history-transaksi':
        return { answer: this.history(account, method, p), couldSucceed: true };
      case 'cek-trx-id':
        return { answer: this.lookup(account, String(p.trx_id)), couldSucceed: true };
      case 'invite-member':
        return this.invite(account, p);
    }
  }

  private success(fields: Record<string, unknown>): Answer {
    const body: Record<string, unknown> = {
      ok: true,
      status: this.on('success-status-ok') ? 'OK' : 'SUCCESS',
      ...fields,
    };
    if (this.on('envelope-no-status')) delete body.status;
    return { http: 200, body };
  }

  private history(account: Account, method: Method, p: Record<string, unknown>): Answer {
    let recs = this.txns.filter((t) => t.account === account.id);
    if (!this.on('date-filters-ignored')) {
      if (p.date !== undefined) recs = recs.filter((t) => t.date === p.date);
      if (p.month !== undefined) recs = recs.filter((t) => t.date.slice(5, 7) === p.month);
      if (p.year !== undefined) recs = recs.filter((t) => t.date.slice(0, 4) === p.year);
    }
    if (p.q !== undefined && !this.on('q-ignored')) {
      const s = String(p.q).toLowerCase();
      const s62 = /^0\d+$/.test(s) ? to62(s) : s;
      recs = recs.filter((t) => {
        const product = this.products.find((x) => x.code === t.product);
        return (
          t.manager.includes(s62) ||
          t.member.includes(s62) ||
          t.manager.includes(s) ||
          t.member.includes(s) ||
          (!this.on('q-misses-trx-id') && t.trxId.toLowerCase().includes(s)) ||
          t.product.toLowerCase().includes(s) ||
          (product?.name.toLowerCase().includes(s) ?? false)
        );
      });
    }
    recs = [...recs].sort((a, b) => (a.date === b.date ? b.seq - a.seq : a.date < b.date ? 1 : -1));
    const limit = this.on('limit-ignored')
      ? Number.POSITIVE_INFINITY
      : Math.min(Number(p.limit ?? HISTORY_DEFAULT_LIMIT), HISTORY_MAX_LIMIT);
    recs = recs.slice(0, limit);
    if (method === 'POST' && this.on('post-drops-record') && recs.length >= 2) recs = recs.slice(0, -1);
    const data = recs.map((t) => ({
      trx_id: t.trxId,
      manager_number: t.manager,
      member_number: t.member,
      date: this.on('history-date-format') ? t.date.split('-').reverse().join('-') : t.date,
    }));
    return this.success({ data });
  }

  private lookup(account: Account, trxId: string): Answer {
    const txn = this.byTrx.get(`${account.id}\u0000${trxId}`);
    if (!txn && !this.on('lookup-phantom')) return refuse('TRX_NOT_FOUND', `No transaction with trx_id ${trxId}.`);
    const swapped = [...trxId].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    return this.success({
      data: { trx_id: this.on('lookup-wrong-id') ? swapped : trxId, status: txn?.status ?? 'SUCCESS' },
    });
  }

  private invite(account: Account, p: Record<string, unknown>): Handled {
    const trxId = String(p.trx_id);
    const no = (status: string, message: string): Handled => ({ answer: refuse(status, message), couldSucceed: false });
    if (this.byTrx.has(`${account.id}\u0000${trxId}`) && !this.on('duplicate-trx-accepted')) {
      return no('DUPLICATE_TRX_ID', `trx_id ${trxId} was already used.`);
    }
    const wanted = String(p.product_code).toLowerCase();
    const product = this.products.find((x) => x.code.toLowerCase() === wanted || x.name.toLowerCase() === wanted);
    if (!product) return no('UNKNOWN_PRODUCT', `No product with code or name ${String(p.product_code)}.`);
    if (p.kind !== undefined && p.kind !== product.kind && !this.on('kind-unchecked')) {
      return no('KIND_MISMATCH', `Product ${product.code} is of kind ${product.kind}, not ${String(p.kind)}.`);
    }
    const yes = (answer: Answer): Handled => ({ answer, couldSucceed: true });
    if (account.saldo < product.price) {
      return yes(refuse('INSUFFICIENT_BALANCE', `Balance ${account.saldo} is below the price ${product.price}.`));
    }
    const msisdn = String(p.msisdn);
    const member = to62(msisdn);
    const mine = this.managers.filter((m) => m.account === account.id && m.kind === product.kind);
    let manager = mine.find((m) => m.members.has(member));
    let slot = manager?.members.get(member);
    if (!manager) {
      manager = mine.find((m) => this.freeSlot(m) !== undefined);
      slot = manager ? this.freeSlot(manager) : undefined;
    }
    if (!manager || slot === undefined)
      return yes(refuse('NO_FREE_SLOT', `No ${product.kind} manager has a free slot.`));
    manager.members.set(member, slot);
    account.saldo += this.on('invite-credits-balance') ? product.price : -product.price;
    if (!this.on('invite-not-recorded')) {
      this.record({
        trxId,
        account: account.id,
        manager: manager.number,
        member,
        product: product.code,
        date: new Date().toISOString().slice(0, 10),
      });
    }
    return yes(
      this.success({
        message: `Member ${member} added to manager ${manager.number} (${product.kind}), slot ${slot}.`,
        trx_id: trxId,
        detail: {
          manager: manager.number,
          member: this.on('invite-member-raw') ? msisdn : member,
          slot: this.on('invite-slot-number') ? slot : String(slot),
        },
      }),
    );
  }

  private freeSlot(m: Manager): number | undefined {
    const taken = new Set(m.members.values());
    for (let s = 1; s <= m.slots; s++) if (!taken.has(s)) return s;
    return undefined;
  }

  private record(t: Omit<Txn, 'seq' | 'status'>): void {
    const txn: Txn = { ...t, seq: ++this.seq, status: 'SUCCESS' };
    this.txns.push(txn);
    this.byTrx.set(`${t.account}\u0000${t.trxId}`, txn);
  }
}

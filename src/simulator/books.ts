import type { FaultName, FaultSetting } from './faults/index.js';
import type { Fixture } from './fixtures.js';
import { invitesCovered, type Reading } from './legal.js';

export interface Account {
  id: string;
  apiKey: string;
  saldo: number;
}

export interface Manager {
  number: string;
  account: string;
  kind: 'akrab' | 'circle';
  slots: number;
  /** member number (62-form) -> slot number */
  members: Map<string, number>;
}

export interface Txn {
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

/** A balance above 2^31 (the `saldo=big` reading) is the fixture's plus this. */
const BIG = 2 ** 32;

/**
 * The simulator's books: its accounts, products, managers and transactions, loaded from the fixture under one
 * reading, and the fault it runs under. The rules (SimState and its parts) read and write them; only an invite's
 * charge and its record change them.
 */
export class SimBooks {
  fault: FaultSetting | null = null;
  readonly accounts = new Map<string, Account>();
  readonly byKey = new Map<string, Account>();
  readonly products: Fixture['products'];
  readonly managers: Manager[] = [];
  readonly txns: Txn[] = [];
  /** Each transaction by account and trx_id (txnKey). */
  readonly byTrx = new Map<string, Txn>();
  /** The last sequence number given to a transaction. */
  seq = 0;
  /** The last sequence number of the fixture's own history: later transactions are the invites'. */
  readonly fixtureSeq: number;
  readonly suite: Fixture['suite'];

  constructor(
    fixture: Fixture,
    demoKey: string | undefined,
    readonly reading: Reading,
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

  /** Whether the named behaviour fault is on. */
  faultOn(name: FaultName): boolean {
    return this.fault?.name === name;
  }

  /** The first free slot of a manager. */
  freeSlot(m: Pick<Manager, 'members' | 'slots'>): number | undefined {
    const taken = new Set(m.members.values());
    for (let s = 1; s <= m.slots; s++) if (!taken.has(s)) return s;
    return undefined;
  }

  /** A new transaction, shown by history and cek-trx-id `lagMs` from now. */
  record(t: Omit<Txn, 'seq' | 'visibleAt'>, lagMs: number): void {
    const txn: Txn = { ...t, seq: ++this.seq, visibleAt: performance.now() + lagMs };
    this.txns.push(txn);
    this.byTrx.set(txnKey(t.account, t.trxId), txn);
  }
}

/** The key of a transaction, or of an invite in flight: its account and its trx_id. */
export const txnKey = (account: string, trxId: string): string => `${account}\u0000${trxId}`;

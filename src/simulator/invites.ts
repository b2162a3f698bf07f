import { to62 } from '../openapi/numbers.js';
import { type Answer, type Handled, refuse, success } from './answer.js';
import { type Account, type Manager, type SimBooks, txnKey } from './books.js';
import type { Fixture } from './fixtures.js';
import { lagMsOf } from './legal.js';

/**
 * invite-member, the one request that spends money: its trx_id checked for reuse (in flight included), its product
 * and kind, then the charge at the operator, the balance, the slot and the record, in one synchronous step.
 */
export class SimInvites {
  /** How long an invite's charge at the operator takes, in milliseconds. */
  chargeMs = 10;
  private readonly roundRobin = new Map<string, number>();
  /** Invites between their checks and their charge: account + trx_id. */
  private readonly inFlight = new Set<string>();
  /** The `repeat=replay` reading: each trx_id's first invite (its parameters and its answer, maybe in flight). */
  private readonly firstInvites = new Map<string, { same: string; handled: Promise<Handled> }>();

  constructor(
    private readonly books: SimBooks,
    /** The provider's day as a learned reading gives it (minutes from UTC): new transactions are dated by it. */
    private readonly dayOffsetMinutes: number,
  ) {}

  async invite(account: Account, p: Record<string, unknown>, sentAs: Record<string, string[]>): Promise<Handled> {
    const { books } = this;
    const { reading } = books;
    const trxByAlias = !(sentAs.trx_id ?? []).includes('trx_id');
    // The `trx-id=alnum20` reading: a provider's own rule for transaction IDs.
    if (reading['trx-id'] === 'alnum20' && p.trx_id !== undefined && !/^[A-Za-z0-9]{1,20}$/.test(String(p.trx_id)))
      return {
        answer: refuse('INVALID_TRX_ID', 'trx_id must be 1 to 20 letters or digits.'),
        couldSucceed: false,
        params: p,
      };
    // Fault `missing-trx-with-name`: a made-up trx_id.
    const trxId = p.trx_id === undefined ? `AUTO-${books.seq + 1}` : String(p.trx_id);
    const key = txnKey(account.id, trxId);
    const no = (answer: Answer): Handled => ({ answer, couldSucceed: false, params: p });
    // Fault `duplicate-trx-accepted`; fault `inflight-duplicate`: a trx_id in flight is not seen as used; fault
    // `repeat-via-trxid`: a trx_id sent as `trxid` is never seen as used.
    const used =
      !(books.faultOn('repeat-via-trxid') && trxByAlias) &&
      (books.byTrx.has(key) || (this.inFlight.has(key) && !books.faultOn('inflight-duplicate')));
    // The `repeat=replay` reading: the same invite again gets its first answer, in flight or not, and no charge.
    const same = JSON.stringify([p.msisdn, p.product_code, p.kind ?? null, p.name ?? null]);
    const first = reading.repeat === 'replay' ? this.firstInvites.get(key) : undefined;
    if (used && first?.same === same && !books.faultOn('duplicate-trx-accepted'))
      return { ...(await first.handled), couldSucceed: false };
    if (used && !books.faultOn('duplicate-trx-accepted')) {
      return no(refuse('DUPLICATE_TRX_ID', `trx_id ${trxId} was already used.`));
    }
    const wanted = String(p.product_code).toLowerCase();
    const product = books.products.find((x) => x.code.toLowerCase() === wanted || x.name.toLowerCase() === wanted);
    if (!product) return no(refuse('UNKNOWN_PRODUCT', `No product with code or name ${String(p.product_code)}.`));
    // Fault `kind-unchecked` (an unknown kind was let through above).
    if (p.kind !== undefined && p.kind !== product.kind && !books.faultOn('kind-unchecked')) {
      return no(refuse('KIND_MISMATCH', `Product ${product.code} is of kind ${product.kind}, not ${String(p.kind)}.`));
    }
    const yes = (answer: Answer): Handled => ({ answer, couldSucceed: true, params: p });
    this.inFlight.add(key);
    const handled = (async () => {
      try {
        await new Promise((r) => setTimeout(r, this.chargeMs));
        // Fault `credit-via-code`; fault `credit-without-kind`.
        const credit =
          (books.faultOn('credit-via-code') && (sentAs.product_code ?? []).includes('code')) ||
          (books.faultOn('credit-without-kind') && p.kind === undefined);
        // Fault `alias-member-empty`.
        const blank = books.faultOn('alias-member-empty') && !(sentAs.msisdn ?? ['msisdn']).includes('msisdn');
        return yes(this.carryOut(account, p, trxId, product, { credit, blank }));
      } finally {
        this.inFlight.delete(key);
      }
    })();
    if (reading.repeat === 'replay') this.firstInvites.set(key, { same, handled });
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
    const { books } = this;
    if (account.saldo < product.price) {
      return refuse('INSUFFICIENT_BALANCE', `Balance ${account.saldo} is below the price ${product.price}.`);
    }
    const member = to62(String(p.msisdn));
    const place = this.place(account, product.kind, member);
    if (!place) return refuse('NO_FREE_SLOT', `No ${product.kind} manager has a free slot.`);
    for (const m of books.managers) if (m.kind === product.kind && m.account === account.id) m.members.delete(member);
    place.manager.members.set(member, place.slot);
    // Fault `invite-credits-balance`.
    account.saldo += books.faultOn('invite-credits-balance') || credit ? product.price : -product.price;
    // Fault `invite-not-recorded`; fault `name-outside-latin1-unrecorded`.
    const latin1 = [...String(p.name ?? '')].every((c) => (c.codePointAt(0) ?? 0) <= 0xff);
    if (!books.faultOn('invite-not-recorded') && !(books.faultOn('name-outside-latin1-unrecorded') && !latin1)) {
      books.record(
        {
          // Fault `trx-trimmed-after-check`: the used-ID check saw the ID as sent; the store trims it.
          trxId: books.faultOn('trx-trimmed-after-check') ? trxId.trim() : trxId,
          account: account.id,
          manager: place.manager.number,
          // Fault `alias-member-empty`: a number that came under an alias is stored empty.
          member: blank ? '' : member,
          product: product.code,
          date: new Date(Date.now() + this.dayOffsetMinutes * 60_000).toISOString().slice(0, 10),
          status: 'SUCCESS',
          ...(typeof p.name === 'string' ? { name: p.name } : {}),
        },
        lagMsOf(books.reading),
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
    const { books } = this;
    const mine = books.managers.filter((m) => m.account === account.id && m.kind === kind);
    const current = mine.find((m) => m.members.has(member));
    if (books.reading.slot === 'old' && current) return { manager: current, slot: current.members.get(member) ?? 0 };
    // The member leaves its old slot before it takes a new one.
    const withFree = mine.filter((m) => m === current || books.freeSlot(m) !== undefined);
    const free = (m: Manager): number | undefined => {
      if (m !== current) return books.freeSlot(m);
      const without = new Map(m.members);
      without.delete(member);
      return books.freeSlot({ ...m, members: without });
    };
    let manager: Manager | undefined;
    switch (books.reading.slot) {
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
}

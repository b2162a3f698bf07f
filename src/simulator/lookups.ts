import { type Answer, refuse, success } from './answer.js';
import { type Account, type SimBooks, type Txn, txnKey } from './books.js';

/** cek-trx-id: one transaction of an account by its trx_id, once history shows it. */
export class SimLookups {
  constructor(private readonly books: SimBooks) {}

  answer(account: Account, trxId: string): Answer {
    const { books } = this;
    const txn = books.byTrx.get(txnKey(account.id, trxId)) ?? this.lookalike(account, trxId);
    const visible = txn && txn.visibleAt <= performance.now() ? txn : undefined;
    // Fault `unknown-digits-found`: an unknown ID of digits only is read as a row number, and a record answers.
    const row = books.txns.filter((t) => t.account === account.id).at(-1);
    if (!visible && books.faultOn('unknown-digits-found') && /^[0-9]+$/.test(trxId) && row)
      return success({ data: { trx_id: row.trxId, status: row.status } });
    // Fault `lookup-failed-refused`: a transaction that did not succeed is not found.
    if (visible && visible.status !== 'SUCCESS' && books.faultOn('lookup-failed-refused'))
      return refuse('TRX_NOT_FOUND', `No transaction with trx_id ${trxId}.`);
    // Fault `lookup-refunded-list`: a kind only a lookup shows, answered in a shape of its own.
    if (visible?.status === 'REFUNDED' && books.faultOn('lookup-refunded-list'))
      return success({ data: [{ trx_id: visible.trxId, status: visible.status }] });
    // Fault `lookup-phantom`.
    if (!visible && !books.faultOn('lookup-phantom'))
      return refuse('TRX_NOT_FOUND', `No transaction with trx_id ${trxId}.`);
    return success({ data: { trx_id: visible?.trxId ?? trxId, status: visible?.status ?? 'SUCCESS' } });
  }

  /**
   * Fault `lookup-any-case`: an ID found in any letter case; fault `lookup-prefix-found`: an ID of 3 characters or
   * more found as the beginning of one. The record answers with its own ID.
   */
  private lookalike(account: Account, trxId: string): Txn | undefined {
    const mine = this.books.txns.filter((t) => t.account === account.id);
    if (this.books.faultOn('lookup-any-case')) return mine.find((t) => t.trxId.toLowerCase() === trxId.toLowerCase());
    if (this.books.faultOn('lookup-prefix-found') && trxId.length >= 3)
      return mine.find((t) => t.trxId.startsWith(trxId));
    return undefined;
  }
}

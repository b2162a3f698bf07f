import type { Endpoint } from '../openapi/types.js';
import { type Answer, refuse } from './answer.js';
import type { Account, SimBooks } from './books.js';

/** Who a request's key is: the account it opens, and the refusal of a key that opens none. */
export class SimAccounts {
  constructor(private readonly books: SimBooks) {}

  /**
   * The account of a key. Fault `auth-any-key`: any key is the first account's. Fault `auth-key-any-case`: a
   * key that differs only in letter case is the same key.
   */
  authenticate(key: string): Account | undefined {
    const { byKey } = this.books;
    const account = byKey.get(this.keyAsRead(key));
    if (!account && this.books.faultOn('auth-any-key')) return byKey.values().next().value;
    if (!account && this.books.faultOn('auth-key-any-case'))
      return [...byKey].find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
    return account;
  }

  /**
   * The key as the simulator reads it: as sent. Fault `auth-key-trailing-newline`: a trailing line break is
   * stripped; fault `auth-key-decoded-twice`: percent-escapes are decoded once more.
   */
  private keyAsRead(key: string): string {
    if (this.books.faultOn('auth-key-trailing-newline')) return key.replace(/\r?\n$/, '');
    if (this.books.faultOn('auth-key-decoded-twice')) {
      try {
        return decodeURIComponent(key);
      } catch {
        return key;
      }
    }
    return key;
  }

  /** The refusal of an unknown key. Fault `wrong-key-shows-record`: a lookup's refusal carries the asked record. */
  unknownKey(endpoint: Endpoint, p: Record<string, unknown>): Answer {
    const answer = refuse('INVALID_API_KEY', 'The api_key is not known.');
    const txn = this.books.txns.find((t) => t.trxId === p.trx_id);
    if (this.books.faultOn('wrong-key-shows-record') && endpoint === 'cek-trx-id' && txn)
      answer.body.data = { trx_id: txn.trxId, status: txn.status };
    return answer;
  }
}

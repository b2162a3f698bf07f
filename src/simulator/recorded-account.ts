import { bodyOf, records } from '../openapi/exchange.js';
import type { ApiModel } from '../openapi/load.js';
import { MSISDN, to62 } from '../openapi/numbers.js';
import { phoneForm } from '../openapi/shape.js';
import type { Exchange } from '../openapi/types.js';
import type { Fixture } from './fixtures.js';

const sameCode = (v: unknown, code: string): boolean => typeof v === 'string' && v.toLowerCase() === code.toLowerCase();

/** The account the exchanges were recorded with: its key, the suite's product and kind, its test numbers. */
type RecordedTarget = {
  apiKey: string;
  product: string;
  kind: 'akrab' | 'circle';
  msisdns: readonly string[];
  price?: number;
};

/** The trx_ids of the run's own invites that were carried out: not the account's history. */
function ownInvites(api: ApiModel, exchanges: readonly Exchange[]): Set<string> {
  const own = new Set<string>();
  for (const ex of exchanges)
    if (ex.endpoint === 'invite-member' && bodyOf(ex)?.ok === true) {
      const trx = bodyOf(ex)?.trx_id ?? api.foldRequest('invite-member', ex.params).params.trx_id;
      if (trx !== undefined) own.add(String(trx));
    }
  return own;
}

/** The records' product and kind, where a field of theirs holds them (undocumented: found by the suite's product). */
function recordFields(
  exchanges: readonly Exchange[],
  product: string,
): { productField: string | undefined; kindField: string | undefined } {
  const all = exchanges.flatMap((ex) => records(ex) ?? []);
  const productField = Object.keys(all.find((r) => Object.values(r).some((v) => sameCode(v, product))) ?? {}).find(
    (k) => k !== 'trx_id' && all.some((r) => sameCode(r[k], product)),
  );
  const kindField = Object.keys(all[0] ?? {}).find((k) => all.every((r) => r[k] === 'akrab' || r[k] === 'circle'));
  return { productField, kindField };
}

/**
 * The account a gate run saw at a provider, as a fixture of the simulator (bench/fidelity.ts): its key and first
 * balance, every history record the run read that is not one of its own invites, and how each transaction's
 * numbers showed. Serving a learned reading on it, the mock holds the provider's data, so that what differs
 * between the two is the reading's. Kept in memory by whoever replays: it holds phone numbers, and never goes into
 * a reading file.
 */
export function recordedAccount(api: ApiModel, exchanges: readonly Exchange[], target: RecordedTarget): Fixture {
  const own = ownInvites(api, exchanges);
  const history = new Map<string, Fixture['history'][number]>();
  const managers = new Set<string>();
  const statuses = new Map<string, string>();
  const forms: NonNullable<Fixture['forms']> = {};
  const shown = (trx: string, endpoint: string, value: unknown, path: string): void => {
    const walk = (v: unknown, p: string): void => {
      const form = phoneForm(v);
      if (form) forms[trx] = { ...forms[trx], [`${endpoint} ${p}`]: form };
      else if (v && typeof v === 'object' && !Array.isArray(v))
        for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
    };
    walk(value, path);
  };
  const { productField, kindField } = recordFields(exchanges, target.product);
  const products = new Map<string, 'akrab' | 'circle'>([[target.product, target.kind]]);
  let saldo: number | undefined;
  for (const ex of exchanges) {
    const body = bodyOf(ex);
    if (body?.ok !== true) continue;
    if (ex.endpoint === 'saldo-user' && typeof body.saldo === 'number') saldo ??= body.saldo;
    if (ex.endpoint === 'cek-trx-id' && body.data && typeof body.data === 'object') {
      const d = body.data as Record<string, unknown>;
      if (typeof d.trx_id === 'string') {
        if (typeof d.status === 'string') statuses.set(d.trx_id, d.status);
        shown(d.trx_id, ex.endpoint, d, 'data');
      }
    }
    if (ex.endpoint === 'invite-member' && typeof body.trx_id === 'string') shown(body.trx_id, ex.endpoint, body, '');
    for (const r of records(ex) ?? []) {
      const trx = String(r.trx_id ?? '');
      if (!trx) continue;
      shown(trx, ex.endpoint, r, 'data[]');
      const manager = to62(r.manager_number);
      const member = to62(r.member_number);
      if (own.has(trx) || history.has(trx) || !/^62[0-9]{7,13}$/.test(manager) || !/^62[0-9]{7,13}$/.test(member))
        continue;
      if (typeof r.date !== 'string' || !/^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/.test(r.date)) continue;
      managers.add(manager);
      const code =
        productField && typeof r[productField] === 'string' && r[productField]
          ? String(r[productField])
          : target.product;
      const kind = kindField ? (r[kindField] as 'akrab' | 'circle') : target.kind;
      if (![...products.keys()].some((p) => sameCode(p, code))) products.set(code, kind);
      history.set(trx, {
        trx_id: trx.slice(0, 64),
        account: 'recorded',
        manager,
        member,
        product: [...products.keys()].find((p) => sameCode(p, code)) ?? target.product,
        date: r.date,
      });
    }
  }
  const list = [...history.values()]
    .map((h) =>
      statuses.has(h.trx_id) ? { ...h, status: String(statuses.get(h.trx_id)).slice(0, 32) || 'SUCCESS' } : h,
    )
    // Oldest first, as the simulator records them; a page newest first then shows them in the provider's order.
    .reverse()
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return fixtureOf(target, products, list, [...managers], saldo, forms);
}

/** The fixture of a recorded account: its history, its managers with room, its products, the suite's numbers. */
function fixtureOf(
  target: RecordedTarget,
  products: ReadonlyMap<string, 'akrab' | 'circle'>,
  list: Fixture['history'],
  managers: string[],
  saldo: number | undefined,
  forms: NonNullable<Fixture['forms']>,
): Fixture {
  const slots = Math.max(50, list.length + 20);
  // The run's own invites need a group of the suite's kind with free slots.
  const numbers = [...managers, '6281100009999'];
  return {
    accounts: [{ id: 'recorded', api_key: target.apiKey, saldo: Math.max(0, Math.floor(saldo ?? 10_000_000)) }],
    // Every product the records name (their prices unseen but the suite's): the history refers to each.
    products: [...products].map(([code, kind]) => ({
      code,
      name: code,
      kind,
      price: Math.max(1, Math.round(target.price ?? 10_000)),
    })),
    managers: numbers.map((number) => ({ number, account: 'recorded', kind: target.kind, slots })),
    suite: {
      account: 'recorded',
      product: target.product,
      kind: target.kind,
      msisdns: target.msisdns.filter((m) => MSISDN.test(m)),
      max_invites: 1000,
    },
    history: list,
    forms,
  };
}

import { show } from '../spec/jsonpath.js';
import type { Spec } from '../spec/load.js';
import type { ClauseId, Exchange, Finding } from '../spec/types.js';
import { type Body, bodyOf, finding, param } from './util.js';

/** A stable text of a value, with object keys sorted. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Body)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** The payload compared between two calls: arrays of records as multisets, since no order is documented. */
function payloadText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  return canonical(value);
}

/**
 * ENV-2 and ENV-3: `b` must give the outcome of `a`: same `ok`, same `status`, same payload (`detail`,
 * `data`). `message` may differ; `saldo` is compared by presence and type (a balance may move); the invite's
 * `trx_id` is compared with each request's own trx_id, since two invites never share one.
 */
export function compareOutcomes(spec: Spec, clause: ClauseId, a: Exchange, b: Exchange): Finding[] {
  const ba = bodyOf(a);
  const bb = bodyOf(b);
  const label = `${a.method} ${paramNames(a)} vs ${b.method} ${paramNames(b)}`;
  if (!ba || !bb) {
    if (!ba && !bb) return [];
    return [
      finding(spec, clause, b, '$', `a JSON object as for ${label.split(' vs ')[0]}`, bb ? '(JSON)' : '(not JSON)'),
    ];
  }
  const out: Finding[] = [];
  const diff = (path: string, x: unknown, y: unknown): void => {
    out.push(finding(spec, clause, b, path, show(x), y, `${path} differs (${label}): ${show(x)} vs ${show(y)}`));
  };
  if (ba.ok !== bb.ok) diff('$.ok', ba.ok, bb.ok);
  if (ba.status !== bb.status) diff('$.status', ba.status, bb.status);
  for (const key of ['detail', 'data'] as const) {
    if (payloadText(ba[key]) !== payloadText(bb[key])) diff(`$.${key}`, ba[key], bb[key]);
  }
  if (typeof ba.saldo !== typeof bb.saldo) diff('$.saldo (type)', typeof ba.saldo, typeof bb.saldo);
  if (a.endpoint === 'invite-member' && ba.ok === true && bb.ok === true) {
    if (ba.trx_id !== param(spec, a, 'trx_id') || bb.trx_id !== param(spec, b, 'trx_id')) {
      diff('$.trx_id', param(spec, b, 'trx_id'), bb.trx_id);
    }
  }
  return out;
}

/** The parameter names a request used (never their values). */
function paramNames(ex: Exchange): string {
  return `(${Object.keys(ex.params).join(',')})`;
}

import type { Knob } from '../openapi/open-points.js';
import { ENDPOINTS } from '../openapi/types.js';
import type { EndpointRefusal, LearnedFields, Vocabulary } from './file.js';
import { GRADES, type Grade, type LearnedPoint, type ReadingChange } from './types.js';

/**
 * What changed in the provider's reading between two runs (`--baseline`), every learned value compared: the knobs,
 * and the vocabulary (words and codes per kind of refusal, fields at every level, number forms, products, names,
 * the order of checks, the values judged otherwise than the document). Each change is graded by what it does to a
 * client, as oasdiff grades changes of a spec: `breaking` (a refusal's word or code changed, a field gone or
 * retyped, a form a client never saw), `warning` (a client may notice: a price, a default, the order of checks),
 * `info` (a client keeps working: a field added, a form gone). A point learned in one run and not in the other is
 * never a change: it is "not seen this time" (or seen this time only). Measured values move a little between runs
 * (a rate, a lag): within their tolerance they have not changed.
 */

/** What a run learned: its knobs and its vocabulary. */
export interface RunReading {
  reading: readonly LearnedPoint[];
  vocabulary?: Vocabulary;
}

/** The changes, and the points learned in one run only (never changes). */
export interface ReadingComparison {
  changes: ReadingChange[];
  notSeen: string[];
}

const num = (v: string | undefined): number =>
  v === undefined || v === 'none' || v === 'all' ? Infinity : Number.parseFloat(v);

/** The grade of a knob's change, or undefined when the two values are the same within what measuring allows. */
function knobGrade(knob: Knob, before: string, after: string): Grade | undefined {
  switch (knob) {
    case 'rate-limit': {
      // The rate is measured from what got through before the provider limited the run: a fifth either way.
      const [a = '', sa = '429'] = before.split(':');
      const [b = '', sb = '429'] = after.split(':');
      return sa === sb && Math.abs(Number.parseFloat(b) / Number.parseFloat(a) - 1) <= 0.25 ? undefined : 'warning';
    }
    case 'lag':
      // Learned to 100 ms from reads a loaded machine may answer late.
      return Math.abs(Number.parseInt(after, 10) - Number.parseInt(before, 10)) <= 200 ? undefined : 'warning';
    case 'max-limit':
      return num(after) < num(before) || after.endsWith(':refuse') !== before.endsWith(':refuse') ? 'breaking' : 'info';
    case 'message':
    case 'extra':
      // A field the client read gone is breaking; one added is not.
      return after === 'absent' || after === 'none' ? 'breaking' : 'info';
    case 'trx-id':
      return after === 'alnum20' ? 'breaking' : 'info';
    case 'saldo':
      return after === 'fraction' ? 'breaking' : 'info';
    case 'balance':
      return 'info';
    case 'default-limit':
    case 'content-type':
    case 'content-coding':
    case 'q-case':
      return 'warning';
    default:
      return 'breaking';
  }
}

/** Fields present at a level (any share). */
const present = (f: LearnedFields | undefined): Map<string, string> =>
  new Map(Object.entries(f ?? {}).map(([path, x]) => [path, x.type]));

function compareFields(
  out: ReadingChange[],
  point: string,
  before: LearnedFields | undefined,
  after: LearnedFields | undefined,
): void {
  const a = present(before);
  const b = present(after);
  for (const [path, type] of a) {
    const now = b.get(path);
    if (now === undefined) out.push({ grade: 'breaking', point: `${point}.${path}`, change: 'gone' });
    else if (now !== type) out.push({ grade: 'breaking', point: `${point}.${path}`, change: `${type} -> ${now}` });
  }
  for (const [path, type] of b)
    if (!a.has(path)) out.push({ grade: 'info', point: `${point}.${path}`, change: `added (${type})` });
}

/** A form counts as shown when it is more than a stray number: twice, or one in twenty. */
function shownForms(shares: Record<string, number | undefined>): Set<string> {
  const total = Object.values(shares).reduce<number>((a, n) => a + (n ?? 0), 0);
  return new Set(
    Object.entries(shares)
      .filter(([, n]) => (n ?? 0) >= 2 || (n ?? 0) / Math.max(1, total) >= 0.05)
      .map(([f]) => f),
  );
}

/** Records a point learned in one run only, and says whether it was (then it is no change). */
type OneSide = (point: string, was: unknown, now: unknown) => boolean;

/** A `OneSide` that writes each point learned in one run only into `notSeen`. */
function oneSideInto(notSeen: string[]): OneSide {
  return (point, was, now) => {
    if (was !== undefined && now === undefined) notSeen.push(`${point}: not seen this time (was ${String(was)})`);
    else if (was === undefined && now !== undefined) notSeen.push(`${point}: seen this time only (${String(now)})`);
    else return false;
    return true;
  };
}

/** The changes of the knobs learned in both runs. */
function knobChanges(
  before: readonly LearnedPoint[],
  after: readonly LearnedPoint[],
  oneSide: OneSide,
): ReadingChange[] {
  const changes: ReadingChange[] = [];
  for (const p of after) {
    const b = before.find((x) => x.knob === p.knob);
    if (
      !b ||
      oneSide(p.knob, b.value, p.value) ||
      b.value === p.value ||
      b.value === undefined ||
      p.value === undefined
    )
      continue;
    const grade = knobGrade(p.knob, b.value, p.value);
    if (grade) changes.push({ grade, point: p.knob, change: `${b.value} -> ${p.value}` });
  }
  return changes;
}

/** The changes of the refusals: per kind, the word and code (on every endpoint that words it otherwise too) and the fields. */
function refusalChanges(va: Vocabulary, vb: Vocabulary, oneSide: OneSide): ReadingChange[] {
  const changes: ReadingChange[] = [];
  const kinds = new Set([...Object.keys(va.refusals ?? {}), ...Object.keys(vb.refusals ?? {})]);
  for (const kind of kinds) {
    const a = va.refusals?.[kind as keyof typeof va.refusals];
    const b = vb.refusals?.[kind as keyof typeof vb.refusals];
    if (!a || !b) {
      oneSide(`refusals.${kind}`, a && `${a.http} ${a.status}`, b && `${b.http} ${b.status}`);
      continue;
    }
    // A word inferred from requests of several faults is no evidence to claim a change by.
    if (a.inferred || b.inferred) {
      oneSide(
        `refusals.${kind}`,
        a.inferred ? undefined : `${a.http} ${a.status}`,
        b.inferred ? undefined : `${b.http} ${b.status}`,
      );
      continue;
    }
    for (const e of [undefined, ...ENDPOINTS]) {
      const ea: EndpointRefusal = (e ? a.endpoints?.[e] : undefined) ?? a;
      const eb: EndpointRefusal = (e ? b.endpoints?.[e] : undefined) ?? b;
      if (e && ea === a && eb === b) continue;
      const at = e ? `refusals.${kind} (${e})` : `refusals.${kind}`;
      if (ea.status !== eb.status)
        changes.push({ grade: 'breaking', point: `${at}.status`, change: `${ea.status} -> ${eb.status}` });
      if (ea.http !== eb.http)
        changes.push({ grade: 'breaking', point: `${at}.http`, change: `${ea.http} -> ${eb.http}` });
      compareFields(changes, `${at}.fields`, ea.fields, eb.fields);
    }
  }
  return changes;
}

/** The changes of the successful answers: the envelope's fields and each kind of history record's. */
function successChanges(va: Vocabulary, vb: Vocabulary, oneSide: OneSide): ReadingChange[] {
  const changes: ReadingChange[] = [];
  for (const e of ENDPOINTS) {
    const a = va.successes?.[e];
    const b = vb.successes?.[e];
    if (!a || !b) {
      oneSide(`successes.${e}`, a && `${a.seen} answers`, b && `${b.seen} answers`);
      continue;
    }
    compareFields(changes, `successes.${e}.fields`, a.fields, b.fields);
    for (const own of ['own', 'other'] as const) {
      const ra = a.records?.[own];
      const rb = b.records?.[own];
      if (ra && rb) compareFields(changes, `successes.${e}.records.${own}`, ra, rb);
      else oneSide(`successes.${e}.records.${own}`, ra && 'records', rb && 'records');
    }
  }
  return changes;
}

/** The changes of the number forms: a form a field now shows that it did not is breaking; one it no longer shows is not. */
function formChanges(va: Vocabulary, vb: Vocabulary, oneSide: OneSide): ReadingChange[] {
  const changes: ReadingChange[] = [];
  for (const e of ENDPOINTS) {
    const fa = va.forms?.[e] ?? {};
    const fb = vb.forms?.[e] ?? {};
    for (const path of new Set([...Object.keys(fa), ...Object.keys(fb)])) {
      const a = fa[path];
      const b = fb[path];
      if (!a || !b) {
        oneSide(`forms.${e}.${path}`, a && [...shownForms(a)].join(', '), b && [...shownForms(b)].join(', '));
        continue;
      }
      const sa = shownForms(a);
      const sb = shownForms(b);
      for (const f of sb)
        if (!sa.has(f))
          changes.push({ grade: 'breaking', point: `forms.${e}.${path}`, change: `${f}-form first seen` });
      for (const f of sa)
        if (!sb.has(f))
          changes.push({ grade: 'info', point: `forms.${e}.${path}`, change: `${f}-form no longer seen` });
    }
  }
  return changes;
}

/** The changes of the products: their kind and price. */
function productChanges(va: Vocabulary, vb: Vocabulary, oneSide: OneSide): ReadingChange[] {
  const changes: ReadingChange[] = [];
  for (const code of new Set([...Object.keys(va.products ?? {}), ...Object.keys(vb.products ?? {})])) {
    const a = va.products?.[code];
    const b = vb.products?.[code];
    if (!a || !b) {
      oneSide(`products.${code}`, a?.kind, b?.kind);
      continue;
    }
    if (a.kind !== b.kind)
      changes.push({ grade: 'breaking', point: `products.${code}.kind`, change: `${a.kind} -> ${b.kind}` });
    if (a.price !== undefined && b.price !== undefined && a.price !== b.price)
      changes.push({ grade: 'warning', point: `products.${code}.price`, change: `${a.price} -> ${b.price}` });
  }
  return changes;
}

/** The changes of which name wins, and of the order of checks (among kinds both runs ordered). */
function nameAndPrecedenceChanges(va: Vocabulary, vb: Vocabulary, oneSide: OneSide): ReadingChange[] {
  const changes: ReadingChange[] = [];
  for (const e of ENDPOINTS)
    for (const subject of new Set([...Object.keys(va.names?.[e] ?? {}), ...Object.keys(vb.names?.[e] ?? {})])) {
      const a = va.names?.[e]?.[subject];
      const b = vb.names?.[e]?.[subject];
      if (!oneSide(`names.${e}.${subject}`, a, b) && a !== b)
        changes.push({ grade: 'breaking', point: `names.${e}.${subject}`, change: `${a} -> ${b}` });
    }
  // Only an order seen both ways is a change: a pair one run saw and the other did not is not seen this time,
  // and the rest of `precedence` is the tie-break of kinds never seen together.
  // A pair a run saw both ways (as often) says nothing of the order: only a clear order reversed is a change.
  const seenA = new Set(va['precedence-seen'] ?? []);
  const seenB = new Set(vb['precedence-seen'] ?? []);
  for (const pair of seenA) {
    const [first, second] = pair.split('>');
    const reversed = `${second}>${first}`;
    if (!seenA.has(reversed) && seenB.has(reversed) && !seenB.has(pair))
      changes.push({ grade: 'warning', point: 'precedence', change: `${first} > ${second} -> ${second} > ${first}` });
  }
  return changes;
}

/**
 * The changes of the values judged otherwise than the document (a shape both runs sent, judged otherwise now),
 * and how many shapes one run only judged so.
 */
function valueChanges(va: Vocabulary, vb: Vocabulary): { changes: ReadingChange[]; oneRun: number } {
  const changes: ReadingChange[] = [];
  let oneRun = 0;
  for (const key of new Set([...Object.keys(va.values ?? {}), ...Object.keys(vb.values ?? {})]))
    for (const shape of new Set([...Object.keys(va.values?.[key] ?? {}), ...Object.keys(vb.values?.[key] ?? {})])) {
      const a = va.values?.[key]?.[shape];
      const b = vb.values?.[key]?.[shape];
      if (a === undefined || b === undefined) oneRun++;
      else if (a !== b)
        changes.push({
          grade: a === 'accepted' ? 'breaking' : b === 'accepted' ? 'info' : 'warning',
          point: `values.${key} \`${shape}\``,
          change: `${a} -> ${b}`,
        });
    }
  return { changes, oneRun };
}

/** Every learned value of `after` compared with `before`. */
export function compareReadings(before: RunReading, after: RunReading): ReadingComparison {
  const notSeen: string[] = [];
  const oneSide = oneSideInto(notSeen);
  const va = before.vocabulary ?? {};
  const vb = after.vocabulary ?? {};
  const values = valueChanges(va, vb);
  const changes = [
    ...knobChanges(before.reading, after.reading, oneSide),
    ...refusalChanges(va, vb, oneSide),
    ...successChanges(va, vb, oneSide),
    ...formChanges(va, vb, oneSide),
    ...productChanges(va, vb, oneSide),
    ...nameAndPrecedenceChanges(va, vb, oneSide),
    ...values.changes,
  ];
  if (values.oneRun)
    notSeen.push(`values: ${values.oneRun} value shape(s) judged otherwise than openapi.yaml in one run only`);
  return { changes, notSeen };
}

/** Whether any change is of a grade at least as severe as `grade`. */
export function changedAtLeast(changes: readonly ReadingChange[], grade: Grade): boolean {
  return changes.some((c) => GRADES.indexOf(c.grade) <= GRADES.indexOf(grade));
}

/** One line of a change: `breaking: refusals.wrong-key.status UNAUTHORIZED -> invalid_key`. */
export const changeLine = (c: ReadingChange): string => `${c.grade}: ${c.point} ${c.change}`;

import {
  READING_FILE_SCHEMA,
  READING_FILE_VERSION,
  type ReadingFile,
  type Vocabulary,
  vocabularyOf,
} from '../reading/index.js';
import { readYamlFile, UsageError, validateConfig } from '../shared/config-file.js';
import { readAs } from '../shared/settings.js';

export { KNOB_NAMES, KNOBS, type Knob } from '../openapi/open-points.js';

import { KNOB_NAMES, KNOBS, type Knob } from '../openapi/open-points.js';

/** A value for every knob. */
export type Reading = Record<Knob, string>;

/** The reference simulator's reading. */
export const REFERENCE: Reading = Object.fromEntries(KNOB_NAMES.map((k) => [k, KNOBS[k].values[0]])) as Reading;

/** Named readings (profiles), each a change from the reference. */
export const PROFILES: Record<string, Partial<Reading>> = {
  reference: {},
  // The v1 "legal variant": extra fields, other refusal words with HTTP 200, oldest-first history, 08-form numbers.
  legal: {
    extra: 'everywhere',
    'refusal-words': 'other',
    'refusal-http': '200',
    order: 'oldest',
    'manager-form': '08',
    'member-form': '08',
  },
  'rate-limited': { 'rate-limit': '100/s' },
  lagging: { lag: '300ms' },
  // Answers differ from the reference but carry no undocumented field: `--strict` with known_statuses passes it.
  'other-words': { 'refusal-words': 'other', 'refusal-http': '200', slot: 'random', order: 'shuffled' },
};

/** Why a value is not legal for a knob, or undefined when it is. */
function problem(knob: Knob, value: string): string | undefined {
  if (knob === 'rate-limit') {
    const [rate, status, extra] = value.split(':');
    if (extra !== undefined || (status !== undefined && status !== '429' && status !== '503'))
      return `rate-limit must be none, N/s or N/s:503, got '${value}'`;
    if (rate === 'none' && status === undefined) return undefined;
    try {
      readAs('rate-limit', rate ?? '', 'rate-limit');
      return undefined;
    } catch {
      return `rate-limit must be none, N/s or N/s:503, got '${value}'`;
    }
  }
  if (knob === 'lag') {
    try {
      readAs('latency', value, 'lag');
      return undefined;
    } catch {
      return `lag must be a duration like 0ms, 200ms or 2s, got '${value}'`;
    }
  }
  if (knob === 'neighbour') {
    if (value === 'none') return undefined;
    try {
      return (readAs('latency', value, 'neighbour') as number) >= 50
        ? undefined
        : `neighbour must be none or a duration of 50ms or more, got '${value}'`;
    } catch {
      return `neighbour must be none or a duration like 1s, got '${value}'`;
    }
  }
  // A learned reading (reports/provider-reading.yaml) may hold any default or maximum the provider has.
  if ((knob === 'default-limit' || knob === 'max-limit') && /^[1-9]\d{0,5}$/.test(value)) return undefined;
  // A maximum above which the provider refuses (`200:refuse`) rather than clamps.
  if (knob === 'max-limit' && /^[1-9]\d{0,5}:refuse$/.test(value)) return undefined;
  if (knob === 'balance')
    return /^(ample|empty|\d{1,4})$/.test(value)
      ? undefined
      : `balance must be ample, empty or a number of invites like 4, got '${value}'`;
  const values = KNOBS[knob].values as readonly string[];
  return values.includes(value) ? undefined : `${knob} must be one of ${values.join(', ')}, got '${value}'`;
}

function isKnob(name: string): name is Knob {
  return Object.hasOwn(KNOBS, name);
}

/** A reading from `knob=value,...` (a profile name is allowed as the first item), on top of the reference. */
export function parseReading(text: string, base: Reading = REFERENCE): Reading {
  const out: Reading = { ...base };
  for (const [i, raw] of text.split(',').entries()) {
    const item = raw.trim();
    if (!item) continue;
    if (!item.includes('=')) {
      if (i === 0 && Object.hasOwn(PROFILES, item)) {
        Object.assign(out, PROFILES[item]);
        continue;
      }
      throw new UsageError(
        `--legal: '${item}' is neither knob=value nor a profile (${Object.keys(PROFILES).join(', ')})`,
      );
    }
    const [name = '', value = ''] = item.split('=', 2).map((s) => s.trim());
    if (!isKnob(name)) throw new UsageError(`--legal: unknown knob '${name}'; knobs: ${KNOB_NAMES.join(', ')}`);
    const why = problem(name, value);
    if (why) throw new UsageError(`--legal: ${why}`);
    out[name] = value;
  }
  return out;
}

/** A reading file as served: its knobs, and the provider's vocabulary when the file was learned by a gate run. */
export interface ServedReading {
  reading: Reading;
  vocabulary?: Vocabulary;
}

/**
 * A reading file (a learned reports/provider-reading.yaml, or a hand-written `{profile?: NAME, <knob>: <value>}`),
 * checked against its schema (src/openapi/reading-file.ts): an unknown field, a wrong type or another version
 * is a UsageError naming it (exit 2).
 */
export function servedFromFile(path: string): ServedReading {
  const raw = readYamlFile(path, 'profile file');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new UsageError(`profile file ${path} must be a mapping of knob: value`);
  const file = validateConfig<ReadingFile>(READING_FILE_SCHEMA, raw, `profile file ${path}`);
  if (file.version !== undefined && file.version !== READING_FILE_VERSION)
    throw new UsageError(
      `profile file ${path}: version ${file.version} is not ${READING_FILE_VERSION}; learn the reading again with h2h contract`,
    );
  const items: string[] = file.profile !== undefined ? [file.profile] : [];
  for (const k of KNOB_NAMES) if (file[k] !== undefined) items.push(`${k}=${String(file[k])}`);
  let reading: Reading;
  try {
    reading = parseReading(items.join(','));
  } catch (err) {
    throw new UsageError(`profile file ${path}: ${(err as Error).message.replace(/^--legal: /, '')}`);
  }
  const vocabulary = vocabularyOf(file);
  return Object.keys(vocabulary).some((k) => k !== 'learned') ? { reading, vocabulary } : { reading };
}

/** A reading from a YAML file: `{profile?: NAME, <knob>: <value>, ...}` (a learned file's vocabulary aside). */
export function readingFromFile(path: string): Reading {
  return servedFromFile(path).reading;
}

/** `knob=value,...` of the knobs that differ from the reference ('reference' when none do). */
export function describeReading(r: Reading): string {
  const diff = KNOB_NAMES.filter((k) => r[k] !== REFERENCE[k]).map((k) => `${k}=${r[k]}`);
  return diff.length ? diff.join(',') : 'reference';
}

/** The rate limit of a reading, or undefined. */
export function rateLimitOf(r: Reading): { perSecond: number; burst: number; status: 429 | 503 } | undefined {
  const [rate = '', status] = r['rate-limit'].split(':');
  if (rate === 'none') return undefined;
  const perSecond = readAs('rate-limit', rate, 'rate-limit') as number;
  return {
    perSecond,
    burst: Math.max(2, Math.floor(perSecond / 4)),
    status: status === '503' ? 503 : 429,
  };
}

/** The read-after-write lag of a reading, in milliseconds (read as every duration is, settings.ts). */
export function lagMsOf(r: Reading): number {
  return readAs('latency', r.lag, 'lag') as number;
}

/** How often another client of the suite's account invites (the `neighbour` knob), in milliseconds; none: undefined. */
export function neighbourMsOf(r: Reading): number | undefined {
  return r.neighbour === 'none' ? undefined : (readAs('latency', r.neighbour, 'neighbour') as number);
}

/**
 * `limit` when the request sends none, and the maximum: Infinity for none. `refuse`: a limit above it is refused
 * (`max-limit=N:refuse`) rather than clamped.
 */
export function limitsOf(r: Reading): { defaultLimit: number; maxLimit: number; refuse: boolean } {
  return {
    defaultLimit: r['default-limit'] === 'all' ? Number.POSITIVE_INFINITY : Number(r['default-limit']),
    maxLimit: r['max-limit'] === 'none' ? Number.POSITIVE_INFINITY : Number.parseInt(r['max-limit'], 10),
    refuse: r['max-limit'].endsWith(':refuse'),
  };
}

export function contentTypeOf(r: Reading): string {
  switch (r['content-type']) {
    case 'plain':
      return 'application/json';
    case 'params':
      return 'application/json;charset=UTF-8;profile="h2h"';
    default:
      return 'application/json; charset=utf-8';
  }
}

/** How many invites of the suite's product the suite account's balance covers: undefined for ample (and empty). */
export function invitesCovered(r: Reading): number | undefined {
  return /^\d+$/.test(r.balance) ? Number(r.balance) : undefined;
}

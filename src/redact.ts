/**
 * The one place that hides API keys and phone numbers. Every output (console, reports, attachments, logs,
 * metrics, status pages) passes through these functions.
 */

/** Parameter names that carry the key (canonical and alias). */
const KEY_PARAMS = ['api_key', 'key'];
const MASK = '***';

const secrets = new Set<string>();

/** Registers a key so that it is hidden wherever it appears, in raw, URL-encoded and JSON-escaped form. */
export function registerSecret(secret: string | undefined): void {
  if (!secret || secret.length < 4) return;
  secrets.add(secret);
  secrets.add(encodeURIComponent(secret));
  secrets.add(new URLSearchParams({ k: secret }).toString().slice(2));
  secrets.add(JSON.stringify(secret).slice(1, -1));
}

const KEY_IN_QUERY = new RegExp(`([?&](?:${KEY_PARAMS.join('|')})=)[^&#\\s"']*`, 'gi');
const KEY_IN_JSON = new RegExp(`("(?:${KEY_PARAMS.join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
// 08/62-prefixed runs of 9 to 15 digits, not inside a longer run of digits.
const PHONE = /(?<!\d)(?:08|62)\d{7,13}(?!\d)/g;

/** Masks the middle of a phone number: 6281234567890 -> 6281******890. */
export function maskPhone(number: string): string {
  if (number.length <= 7) return '*'.repeat(number.length);
  return `${number.slice(0, 4)}${'*'.repeat(number.length - 7)}${number.slice(-3)}`;
}

/** Hides registered keys, any `api_key`/`key` value in a query string or JSON text, and phone numbers. */
export function redact(text: string): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  out = out.replace(KEY_IN_QUERY, `$1${MASK}`);
  out = out.replace(KEY_IN_JSON, `$1"${MASK}"`);
  return out.replace(PHONE, (m) => maskPhone(m));
}

/** A deep copy of a value with key parameters replaced and every string redacted. */
export function redactValue<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = KEY_PARAMS.includes(k.toLowerCase()) && v !== undefined && v !== '' ? MASK : walk(v);
    }
    return out;
  }
  return value;
}

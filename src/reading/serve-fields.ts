import { isJsonObject } from '../shared/json.js';
import type { LearnedFields } from './file.js';

// A learned level of fields served (issue 27): a value made to carry the fields the provider sent, as the reading
// file learned them. The simulator shapes its answers by it (src/simulator/vocabulary.ts).

const parentOf = (path: string): string => {
  const i = path.lastIndexOf('.');
  return i < 0 ? (path.endsWith('[]') ? path : '') : path.slice(0, i);
};
const keyOf = (path: string): string => path.slice(path.lastIndexOf('.') + 1);
const fieldPath = (prefix: string, key: string): string => (prefix ? `${prefix}.${key}` : key);

function placeholder(type: string): unknown {
  switch (type.split('|')[0]) {
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'object':
      return {};
    case 'array':
      return [];
    default:
      return '';
  }
}

/**
 * Makes one level of a value carry exactly the learned fields: those the provider never sent go, those it sent
 * (in at least half its answers) and the value lacks come, with the provider's example; a number where the
 * provider sent a string (or the reverse) is turned. `skip`: a path whose contents are shaped elsewhere.
 */
export function conform(
  value: Record<string, unknown>,
  fields: LearnedFields,
  prefix = '',
  skip?: string,
  echo?: (param: string) => unknown,
): void {
  for (const k of Object.keys(value)) {
    const path = fieldPath(prefix, k);
    const f = fields[path];
    if (!f) {
      delete value[k];
      continue;
    }
    if (path === skip) continue;
    const v = value[k];
    const types = f.type.split('|');
    if (typeof v === 'number' && !types.includes('number') && types.includes('string')) value[k] = String(v);
    else if (
      typeof v === 'string' &&
      !types.includes('string') &&
      types.includes('number') &&
      v !== '' &&
      Number.isFinite(Number(v))
    )
      value[k] = Number(v);
    if (isJsonObject(v)) conform(v, fields, path, skip, echo);
    else if (Array.isArray(v)) for (const x of v) if (isJsonObject(x)) conform(x, fields, `${path}[]`, skip, echo);
  }
  for (const [path, f] of Object.entries(fields)) {
    if (parentOf(path) !== prefix || path.endsWith('[]')) continue;
    const k = keyOf(path);
    if (Object.hasOwn(value, k)) continue;
    if (f.echo !== undefined) {
      // The request's own value back; null (or nothing) when it has none.
      const sent = echo?.(f.echo);
      const types = f.type.split('|');
      // In the provider's type: a text of digits as a number, a number or a boolean as its text.
      if (sent !== undefined)
        value[k] =
          typeof sent === 'string' &&
          !types.includes('string') &&
          types.includes('number') &&
          Number.isFinite(Number(sent))
            ? Number(sent)
            : (typeof sent === 'number' || typeof sent === 'boolean') &&
                !types.includes(typeof sent) &&
                types.includes('string')
              ? String(sent)
              : sent;
      else if (types.includes('null')) value[k] = null;
      // A field every answer had, though the request did not carry its value: the provider's example.
      else if ((f.share ?? 1) >= 0.5)
        value[k] = f.example !== undefined ? structuredClone(f.example) : placeholder(f.type);
      continue;
    }
    if ((f.share ?? 1) < 0.5) continue;
    let v: unknown = f.example !== undefined ? structuredClone(f.example) : placeholder(f.type);
    if (isJsonObject(v)) conform(v, fields, path, skip, echo);
    else if (Array.isArray(v) && v.length === 0 && fields[`${path}[]`]) {
      const item = fields[`${path}[]`];
      const one = item?.example !== undefined ? structuredClone(item.example) : placeholder(item?.type ?? 'object');
      if (isJsonObject(one)) conform(one, fields, `${path}[]`, skip);
      v = [one];
    }
    value[k] = v;
  }
}

/** Turns a JSON Pointer (`/data/0/date`) into a JSON path (`$.data[0].date`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  return `$${pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) =>
      /^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_][\w-]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`,
    )
    .join('')}`;
}

/** The value at a JSON Pointer, or undefined. */
export function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/** A short, single-line rendering of a value for a finding's `actual`. */
export function show(value: unknown, max = 120): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { LintProblem } from './rules.js';

/**
 * In redocly.yaml, every rule switched off carries a comment that says why: above it, or after it on its line.
 * Read with yaml's parseDocument, which keeps comments and positions.
 */
export function offRulesExplained(text: string, source = 'redocly.yaml'): LintProblem[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const rules = doc.get('rules', true);
  if (!isMap(rules)) return [];
  const out: LintProblem[] = [];
  for (const [i, pair] of rules.items.entries()) {
    if (!isScalar(pair.value) || pair.value.value !== 'off' || !isScalar(pair.key)) continue;
    // The comment above the first rule belongs to the map; above any other, to its key.
    const above = pair.key.commentBefore ?? (i === 0 ? rules.commentBefore : undefined);
    if (above?.trim() || pair.value.comment?.trim()) continue;
    out.push({
      rule: 'config-off-explained',
      at: `${source}:${lines.linePos(pair.key.range?.[0] ?? 0).line}`,
      message: `rule ${String(pair.key.value)} is switched off without a comment saying why`,
    });
  }
  return out;
}

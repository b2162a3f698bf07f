import type { LintProblem } from './rules.js';

/** In redocly.yaml, every rule switched off carries a comment just above it that says why. */
export function offRulesExplained(text: string, source = 'redocly.yaml'): LintProblem[] {
  const lines = text.split('\n');
  const out: LintProblem[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*([\w-]+):\s*off\s*(#.*)?$/.exec(line);
    if (!m) return;
    const above = lines[i - 1]?.trim() ?? '';
    if (!m[2] && !above.startsWith('#')) {
      out.push({
        rule: 'config-off-explained',
        at: `${source}:${i + 1}`,
        message: `rule ${m[1]} is switched off without a comment saying why`,
      });
    }
  });
  return out;
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.ts';

// The shell commands README.md and docs/*.md tell a reader to run, as a reader copies them: every line of the
// ```sh, ```bash, ```shell and ```console code blocks (a `\` continuation joined, a trailing comment apart, `a && b`
// as two commands), and every inline `npx ...` of the prose. test/docs-run.test.ts runs them.

/** The pages whose commands are run: README.md, then docs/*.md by name. */
export const DOC_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** One command of a page. */
export interface DocCommand {
  page: string;
  /** Its line in the page, from 1. */
  line: number;
  /** The code block it is in, from 0 within its page; -1 for inline code in the prose. */
  block: number;
  /** The command as written, without its comment. */
  text: string;
  /** Its trailing comment (`# ...`), without the `#`; empty when it has none. */
  comment: string;
}

/** Where a command is, for messages: `docs/gate.md:12: npx h2h contract`. */
export const whereOf = (c: DocCommand): string => `${c.page}:${c.line}: ${c.text}`;

const SHELL_BLOCKS = new Set(['sh', 'bash', 'shell', 'console']);

/**
 * A shell line cut at its operators outside quotes: the commands joined by `&&` (or `;`), and its comment.
 * Pipes, redirections and `&` stay in the command: the runner says what it does with them.
 */
export function splitLine(line: string): { parts: string[]; comment: string } {
  const parts: string[] = [];
  let cur = '';
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quote) {
      if (ch === quote) quote = '';
      cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
      continue;
    }
    if (ch === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      parts.push(cur);
      return { parts: parts.map((p) => p.trim()).filter(Boolean), comment: line.slice(i + 1).trim() };
    }
    if (line.startsWith('&&', i) || ch === ';') {
      parts.push(cur);
      cur = '';
      if (ch === '&') i++;
      continue;
    }
    cur += ch;
  }
  parts.push(cur);
  return { parts: parts.map((p) => p.trim()).filter(Boolean), comment: '' };
}

/** Every command of one page, in its order. */
export function pageCommands(page: string, text = readFileSync(join(ROOT, page), 'utf8')): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = text.split('\n');
  let lang: string | undefined;
  let block = -1;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const fence = /^\s*```\s*([\w-]*)\s*$/.exec(raw);
    if (fence) {
      if (lang === undefined) {
        lang = fence[1] ?? '';
        block++;
      } else lang = undefined;
      continue;
    }
    if (lang === undefined) {
      for (const m of raw.matchAll(/`(npx [^`]+)`/g))
        out.push({ page, line: i + 1, block: -1, text: (m[1] ?? '').trim(), comment: '' });
      continue;
    }
    if (!SHELL_BLOCKS.has(lang)) continue;
    const first = i;
    let line = raw;
    // A continuation: the next line belongs to this command.
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      line = `${line.replace(/\\\s*$/, '')} ${(lines[i] ?? '').trim()}`;
    }
    if (lang === 'console') {
      // Only what follows the prompt is a command; the rest is its output.
      if (!/^\s*\$ /.test(line)) continue;
      line = line.replace(/^\s*\$ /, '');
    }
    if (!line.trim() || /^\s*#/.test(line)) continue;
    const { parts, comment } = splitLine(line);
    for (const part of parts) out.push({ page, line: first + 1, block, text: part, comment });
  }
  return out;
}

/** Every command of README.md and docs/*.md. */
export function docCommands(): DocCommand[] {
  return DOC_PAGES.flatMap((p) => pageCommands(p));
}

/** A command's words as the shell reads them (quotes taken off), its leading `NAME=value` assignments apart. */
export interface Parsed {
  env: Record<string, string>;
  argv: string[];
  /** `> FILE`: where its standard output goes. */
  stdout?: string;
  /** A trailing `&`: it runs in the background. */
  background: boolean;
  /** A pipe or another operator the runner does not take: what it is. */
  other?: string;
}

export function parseCommand(text: string): Parsed {
  const words: { w: string; raw: string; quoted: boolean }[] = [];
  for (const m of text.matchAll(/(?:'[^']*'|"[^"]*"|[^\s'"])+/g)) {
    const raw = m[0];
    words.push({ w: raw.replace(/'([^']*)'|"([^"]*)"/g, '$1$2'), raw, quoted: /['"]/.test(raw) });
  }
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    // An assignment's name is never quoted; its value may be.
    if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]?.raw ?? '')) break;
    const w = words[i]?.w ?? '';
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
  }
  const out: Parsed = { env, argv: [], background: false };
  for (; i < words.length; i++) {
    const { w, quoted } = words[i] ?? { w: '', quoted: false };
    if (!quoted && w === '&' && i === words.length - 1) out.background = true;
    else if (!quoted && w === '>') out.stdout = words[++i]?.w;
    else if (!quoted && /^(\||\|\||&|<|>>|2>.*|>.+)$/.test(w)) out.other ??= w;
    else out.argv.push(w);
  }
  return out;
}

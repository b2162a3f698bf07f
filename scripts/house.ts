// npm run house: the house checking itself. Prints the ten longest functions of src/, suites/, scripts/ and bench/
// (every form: declarations, methods, arrows, function expressions) with their lines, every function, class and
// file over its limit, every import cycle (across folders, type-only imports included), and every name declared
// twice at the top level of two files of src/. test/house.test.ts holds the same rules (houseFindings). Reads the files with the TypeScript compiler's
// own parser: a function is what the language says it is, not what a pattern guesses.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { packageRoot } from '../src/shared/package-root.ts';

export const ROOT = packageRoot();
/** No function is longer than this many lines. */
export const MAX_FUNCTION_LINES = 100;
/** No class is longer than this many lines. */
export const MAX_CLASS_LINES = 200;
/** No file is longer than this many lines, but the settings table (FILE_LIMIT_EXEMPT). */
export const MAX_FILE_LINES = 400;
/** The settings table: one row per flag, variable and file key, and the one home of every default. */
const FILE_LIMIT_EXEMPT = new Set(['src/shared/settings.ts']);
const DIRS = ['src', 'suites', 'scripts', 'bench'];

export interface FunctionSpan {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const p = join(dir, name);
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function source(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The name a function goes by: its own, its variable's, its property's or its method's. */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (named.name && (ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function of a file with its first line and its length in lines. */
export function functionsOf(file: string): FunctionSpan[] {
  const sf = source(file);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      out.push({ file, name: nameOf(node), line: start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every class of a file (declarations and expressions) with its first line and its length in lines. */
export function classesOf(file: string): FunctionSpan[] {
  const sf = source(file);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      out.push({ file, name: node.name?.text ?? nameOf(node), line: start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A file's length in lines. */
export function fileLines(file: string): number {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').length;
}

/** Relative imports of a file, resolved to paths from the project root (type-only imports included). */
export function importsOf(file: string): string[] {
  const sf = source(file);
  const out: string[] = [];
  for (const st of sf.statements) {
    const spec =
      (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier
        ? (st.moduleSpecifier as ts.StringLiteral).text
        : undefined;
    if (spec?.startsWith('.'))
      out.push(relative(ROOT, resolve(dirname(join(ROOT, file)), spec)).replace(/\.js$/, '.ts'));
  }
  return out;
}

/**
 * Import cycles among the given files, across folders, type-only imports included (Tarjan's strongly connected
 * components), each as its files.
 */
export function importCycles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const strong = (v: string): void => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const comp: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      on.delete(w);
      comp.push(w);
      if (w === v) break;
    }
    if (comp.length > 1) out.push(comp.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) strong(f);
  return out;
}

/** Names declared at the top level of two files of src/ (functions, classes, variables of every form). */
export function namesDeclaredTwice(files: readonly string[]): string[] {
  const where = new Map<string, string[]>();
  for (const file of files) {
    for (const st of source(file).statements) {
      const names: string[] = [];
      if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) names.push(st.name.text);
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      for (const name of names) where.set(name, [...(where.get(name) ?? []), file]);
    }
  }
  return [...where].filter(([, list]) => list.length > 1).map(([name, list]) => `${name}: ${list.join(', ')}`);
}

/** What the house rules find. */
export interface HouseFindings {
  all: FunctionSpan[];
  /** Functions over MAX_FUNCTION_LINES. */
  long: FunctionSpan[];
  /** Classes over MAX_CLASS_LINES. */
  longClasses: FunctionSpan[];
  /** Files over MAX_FILE_LINES, as `file lines`. */
  longFiles: string[];
  /** Import cycles anywhere, across folders. */
  cycles: string[][];
  twice: string[];
}

/** What the house rules find: long functions, classes and files, import cycles, names declared twice. */
export function houseFindings(): HouseFindings {
  const files = DIRS.flatMap((d) => tsFiles(d));
  const all = files.flatMap(functionsOf).sort((a, b) => b.lines - a.lines);
  return {
    all,
    long: all.filter((f) => f.lines > MAX_FUNCTION_LINES),
    longClasses: files.flatMap(classesOf).filter((c) => c.lines > MAX_CLASS_LINES),
    longFiles: files
      .filter((f) => !FILE_LIMIT_EXEMPT.has(f))
      .map((f) => [f, fileLines(f)] as const)
      .filter(([, n]) => n > MAX_FILE_LINES)
      .map(([f, n]) => `${f} ${n}`),
    cycles: importCycles(files),
    twice: namesDeclaredTwice(files.filter((f) => f.startsWith('src/'))),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { all, long, longClasses, longFiles, cycles, twice } = houseFindings();
  console.log(
    `house: ${all.length} functions; over ${MAX_FUNCTION_LINES} lines: ${long.length}; over 60: ${all.filter((f) => f.lines > 60).length}`,
  );
  console.log('the ten longest:');
  for (const f of all.slice(0, 10)) console.log(`  ${String(f.lines).padStart(4)}  ${f.file}:${f.line} ${f.name}`);
  for (const c of longClasses)
    console.log(`class over ${MAX_CLASS_LINES} lines: ${c.lines}  ${c.file}:${c.line} ${c.name}`);
  for (const f of longFiles) console.log(`file over ${MAX_FILE_LINES} lines: ${f}`);
  for (const c of cycles) console.log(`cycle: ${c.join(' <-> ')}`);
  for (const t of twice) console.log(`declared twice: ${t}`);
  process.exitCode = long.length || longClasses.length || longFiles.length || cycles.length || twice.length ? 1 : 0;
}

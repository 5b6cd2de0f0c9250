/**
 * No function in src/ longer than MAX_LINES (npm test runs it): state with
 * behaviour is a class with `#private` fields and short methods, and an
 * orchestrating function is a run of named steps (CONTRIBUTING.md, "Style").
 * A function's length is its lines from its first to its last, nested
 * functions included (a factory that hides a class in closures is as long
 * as everything it closes over). Generated files are skipped. Fails naming
 * each function, its file, line and length.
 *
 * `node scripts/check-function-length.ts [root]` (root defaults to the repository).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** The longest a function may be, in lines. */
export const MAX_LINES = 100;

/** Files written by scripts (`npm run types`), not by hand: their length is the generator's. */
export const GENERATED: readonly string[] = ["types/wire.ts", "types/wire-checks.ts"];

/**
 * Functions allowed over the limit, as `file:name`: only for a function being
 * rewritten on a branch of its own, until that branch is merged; it should
 * stay empty. An entry whose function is no longer over the limit (or no
 * longer exists) fails the check, so the list only shrinks.
 */
export const ALLOWED: readonly string[] = [];

/** One function over the limit. */
export interface LongFunction {
  /** Path under src/, with forward slashes. */
  file: string;
  /** How messages and ALLOWED name it: `fileCheckpoint`, `EventCatchUp.#walk`, `<anonymous>`. */
  name: string;
  /** Its first line, 1-based. */
  line: number;
  /** Its length in lines, first to last. */
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameText(name: ts.PropertyName | ts.BindingName | undefined, source: ts.SourceFile) {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) {
    return name.text;
  }
  return name.getText(source);
}

/** The function's name, else what it is assigned to, prefixed by its class. */
function nameOf(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${classOf(node)}.constructor`;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const owner = classOf(node);
    const own = nameText(node.name, source) ?? "<anonymous>";
    return owner === undefined ? own : `${owner}.${own}`;
  }
  const own = node.name === undefined ? undefined : nameText(node.name, source);
  if (own !== undefined) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return nameText(parent.name, source) ?? "<anonymous>";
  }
  if (ts.isPropertyDeclaration(parent)) {
    const owner = classOf(parent);
    const field = nameText(parent.name, source) ?? "<anonymous>";
    return owner === undefined ? field : `${owner}.${field}`;
  }
  return "<anonymous>";
}

function classOf(node: ts.Node): string | undefined {
  const parent = node.parent;
  if (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) {
    return parent.name?.text ?? "<class>";
  }
  return undefined;
}

/** Every function of one file's text longer than `max` lines. */
export function longFunctionsIn(file: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    // An overload or a declaration without a body has no length to speak of.
    if (isFunction(node) && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ file, name: nameOf(node, source), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function under `root`/src over the limit, generated files aside. */
export function longFunctions(root: string): LongFunction[] {
  const src = join(root, "src");
  return sourceFiles(src).flatMap((path) => {
    const file = relative(src, path).split(sep).join("/");
    if (GENERATED.includes(file)) return [];
    return longFunctionsIn(file, readFileSync(path, "utf8"));
  });
}

/** Every problem under `root`/src, as lines to print. */
export function checkFunctionLength(root: string, allowed: readonly string[] = ALLOWED): string[] {
  const long = longFunctions(root);
  const keys = new Set(long.map((f) => `${f.file}:${f.name}`));
  return [
    ...long
      .filter((f) => !allowed.includes(`${f.file}:${f.name}`))
      .map(
        (f) =>
          `src/${f.file}:${f.line} ${f.name} is ${f.lines} lines (at most ${MAX_LINES}): a class with short methods, or named steps`,
      ),
    ...allowed
      .filter((key) => !keys.has(key))
      .map(
        (key) =>
          `src/${key} is allowed to be long but is not over ${MAX_LINES} lines (or is gone): remove it from ALLOWED`,
      ),
  ];
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, ".."));
  const problems = checkFunctionLength(root);
  if (problems.length > 0) {
    console.error(`Function length: ${problems.length} problem(s)\n${problems.join("\n")}`);
    process.exitCode = 1;
  } else {
    const allowed = ALLOWED.length === 0 ? "" : ` but the ${ALLOWED.length} in ALLOWED`;
    console.log(`Function length: no function in src/ over ${MAX_LINES} lines${allowed}.`);
  }
}

// Holds the shipped declaration files (dist/*.d.ts, *.d.cts) to what users
// should see (DESIGN 11.2): no hashed chunk file name, no class or type the
// docs call internal (the client's `Core`, `RequestLog`, the contract's
// `Operation`), and no zod type in any declaration but the exported zod
// schemas themselves (`declare const Case: z.ZodObject<...>`): method
// signatures, interfaces and type aliases use the generated interfaces.
//
// Usage: node scripts/check-declarations.mjs [package dir]   (default: .)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const root = process.argv[2] ?? ".";
const dist = join(root, "dist");
const INTERNAL = new Set(["Core", "RequestLog", "Operation", "CallInput", "ResponseOf"]);
// The entry points' own declaration files (package.json "exports"); every
// other one is a chunk they share, named `shared-<name>` by
// scripts/name-declaration-chunks.mjs rather than `<name>-<hash>`.
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const ENTRY_FILES = new Set(
  JSON.stringify(pkg.exports)
    .match(/\.\/dist\/[\w-]+\.d\.c?ts/g)
    .map((path) => path.slice("./dist/".length)),
);
const problems = [];

const files = readdirSync(dist).filter((f) => /\.d\.c?ts$/.test(f));
if (files.length === 0) problems.push(`${dist}: no declaration files (run npm run build)`);
for (const file of files) {
  if (!ENTRY_FILES.has(file) && !file.startsWith("shared-")) {
    problems.push(`${file}: neither an entry point nor a shared-* chunk (a hashed name?)`);
  }
  const text = readFileSync(join(dist, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const zodNames = new Set();
  const where = (node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const local = specifier.text.startsWith("./")
      ? specifier.text.slice(2).replace(/\.(c?)js$/, ".d.$1ts")
      : undefined;
    if (local !== undefined && !ENTRY_FILES.has(local) && !local.startsWith("shared-")) {
      problems.push(`${where(statement)}: imports the hashed chunk ${specifier.text}`);
    }
    const bindings = ts.isImportDeclaration(statement)
      ? statement.importClause?.namedBindings
      : undefined;
    if (specifier.text === "zod" && bindings) {
      if (ts.isNamespaceImport(bindings)) zodNames.add(bindings.name.text);
      else for (const element of bindings.elements) zodNames.add(element.name.text);
    }
  }
  const visit = (node, inSchemaConstant) => {
    if (
      (ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node)) &&
      node.name &&
      INTERNAL.has(node.name.text)
    ) {
      problems.push(`${where(node)}: declares ${node.name.text}, which the docs call internal`);
    }
    if (!inSchemaConstant && ts.isTypeReferenceNode(node)) {
      const first = ts.isQualifiedName(node.typeName) ? leftmost(node.typeName) : node.typeName;
      // `z.infer<typeof CaseCategory>` names a plain type (a union of strings), shown resolved.
      const inferred = /^\w+\.(infer|input|output)$/.test(node.typeName.getText());
      if (zodNames.has(first.text) && !inferred) {
        problems.push(
          `${where(node)}: a zod type outside a schema constant: ${node.getText().slice(0, 80)}`,
        );
      }
    }
    // The exported zod schemas are zod values: their declared type is zod's.
    const schemaConstant = inSchemaConstant || ts.isVariableStatement(node);
    ts.forEachChild(node, (child) => visit(child, schemaConstant));
  };
  visit(source, false);
}

function leftmost(name) {
  return ts.isQualifiedName(name) ? leftmost(name.left) : name;
}

if (problems.length > 0) {
  console.error(`check-declarations: ${problems.length} problem(s)\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`check-declarations: ${files.length} declaration files clean`);

// What a user's editor shows: the TypeScript language service's quick info on
// every property of every request and response type the entry points export
// (and of the objects nested in them) must carry documentation, the schema's
// description. Read through the public names, as an application writes them.
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRIES = {
  medrecords: "src/index.ts",
  "medrecords/webhooks": "src/webhooks/index.ts",
  "medrecords/mock": "src/mock/index.ts",
  "medrecords/testing": "src/testing/index.ts",
};
const PROBE = `${ROOT}test/types/__hover-probe__.ts`;

function languageService(files: Map<string, string>) {
  const config = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = files.get(name) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (name) => files.has(name) || ts.sys.fileExists(name),
    readFile: (name) => files.get(name) ?? ts.sys.readFile(name),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** A request or response type: declared beside a zod schema, or generated from one. */
function isWireType(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) => {
    const file = d.getSourceFile().fileName;
    return (
      file.includes("/src/schemas/") ||
      file.includes("/src/types/") ||
      file.endsWith("/src/custody/entry.ts")
    );
  });
}

interface Probe {
  /** How the user reaches the property, e.g. `RetrievalRequest.costs.records_fee`. */
  path: string;
  /** Offset of the property name in the probe file. */
  at: number;
}

/** Writes `declare const v: T; v.prop;` for every property, nested objects included. */
function probes(): { text: string; probes: Probe[] } {
  // First, which types the entry points export.
  const imports = Object.entries(ENTRIES)
    .map(([, path], i) => `import type * as E${i} from "../../${path.replace(/\.ts$/, ".js")}";`)
    .join("\n");
  const service = languageService(new Map([[PROBE, imports]]));
  const program = service.getProgram();
  if (!program) throw new Error("no program");
  const checker = program.getTypeChecker();

  const lines = [imports];
  const found: Probe[] = [];
  let length = lines[0]?.length ?? 0;
  const push = (line: string) => {
    lines.push(line);
    length += line.length + 1;
  };
  const seen = new Set<ts.Type>();
  let n = 0;

  const visit = (expression: string, path: string, type: ts.Type) => {
    if (seen.has(type)) return;
    seen.add(type);
    for (const property of checker.getPropertiesOfType(type)) {
      const name = property.getName();
      const variable = `v${n++}`;
      const prefix = `declare const ${variable}: ${expression}; ${variable}.`;
      found.push({ path: `${path}.${name}`, at: length + 1 + prefix.length });
      push(`${prefix}${name};`);
      // Nested objects: `NonNullable<T["costs"]>`, array items `[number]`.
      let inner = checker.getNonNullableType(checker.getTypeOfSymbol(property));
      let innerExpression = `NonNullable<${expression}[${JSON.stringify(name)}]>`;
      if (checker.isArrayType(inner)) {
        inner = checker.getTypeArguments(inner as ts.TypeReference)[0] ?? inner;
        innerExpression = `${innerExpression}[number]`;
      }
      const symbol = inner.getSymbol();
      if (!inner.isUnion() && symbol && isWireType(symbol) && inner.getProperties().length > 0) {
        visit(innerExpression, `${path}.${name}`, inner);
      }
    }
  };

  const probeFile = program.getSourceFile(PROBE);
  if (!probeFile) throw new Error("no probe file");
  Object.keys(ENTRIES).forEach((_, i) => {
    const moduleSymbol = checker.getSymbolAtLocation(
      (probeFile.statements[i] as ts.ImportDeclaration).moduleSpecifier,
    );
    if (!moduleSymbol) throw new Error(`entry ${i} not found`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
      if (!isWireType(symbol)) continue;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      // Objects only: a union's members are exported types of their own (each
      // event), visited by name; an array's item too (`WebhookList`).
      const generic = (symbol.declarations ?? []).some(
        (d) => (ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d)) && d.typeParameters,
      );
      if (!(type.flags & ts.TypeFlags.Object) || checker.isArrayType(type) || generic) continue;
      visit(`E${i}.${exported.getName()}`, exported.getName(), type);
    }
  });
  return { text: lines.join("\n"), probes: found };
}

describe("hover documentation", () => {
  it("documents every property of every request and response type the entry points export", () => {
    const { text, probes: found } = probes();
    const service = languageService(new Map([[PROBE, text]]));
    const errors = service.getSemanticDiagnostics(PROBE);
    expect(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, "\n"))).toEqual([]);

    const undocumented: string[] = [];
    for (const probe of found) {
      const info = service.getQuickInfoAtPosition(PROBE, probe.at);
      const name = probe.path.split(".").at(-1);
      // The position really is the property: its quick info names it.
      expect(ts.displayPartsToString(info?.displayParts), probe.path).toContain(`${name}`);
      const docs = ts.displayPartsToString(info?.documentation).trim();
      if (docs === "") undocumented.push(probe.path);
    }
    // The public types are many: Case, RetrievalRequest, every event, every params type.
    expect(found.length).toBeGreaterThan(300);
    for (const path of [
      "Case.date_of_injury",
      "RetrievalRequestCreate.auth_form",
      "RetrievalRequest.public_updated_at",
      "RetrievalRequest.costs.records_fee",
      "RetrievalRequestStatusChangedEvent.data.retrieval_request_id",
    ]) {
      expect(found.map((p) => p.path)).toContain(path);
    }
    expect(undocumented).toEqual([]);
    // Two type-checked programs of the whole source: slow on a shared machine.
  }, 180_000);
});

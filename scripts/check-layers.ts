/**
 * Keeps ARCHITECTURE.md's layers true (npm test runs it): every import
 * between folders of src/ must be an edge the table below allows
 * (dependencies point down), and no module may reach itself again through
 * run-time imports, dynamic `import()` included (a static cycle makes load
 * order decide what is undefined; a dynamic one is still two modules that
 * need each other). Type-only imports (`import type`) count for the layers,
 * not for cycles: they are erased. Inside the mock's model (src/mock/model) they count for
 * cycles too, and its shared module (state.ts) imports none of the model:
 * each model module owns its slice of the state, so no module is a hub the
 * others hang off (ARCHITECTURE.md, "Where state lives"). Inside the mock,
 * each folder is a floor (MOCK_FLOORS, lowest first) and a floor imports none
 * above it, type imports included; a mock file sits in a floor's folder,
 * `src/mock/index.ts` (the entry) aside. Fails naming each offending import.
 *
 * `node scripts/check-layers.ts [root]` (root defaults to the repository).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * Which layers each layer may import. A layer is a folder of src/, or one
 * of the files at its top (`client`, the entry points). Entry points
 * (`index`, `webhooks-entry`, `mock-entry`, `testing-entry`, `bin`) gather
 * a public surface and may import any layer below the ones that are theirs.
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  internal: [],
  shared: ["internal"],
  // The generated request and response interfaces (src/types/wire.ts): they import nothing.
  types: [],
  schemas: ["types", "shared", "internal"],
  contract: ["schemas", "shared"],
  // Core names the custody log (a port, src/core/custody-log.ts) and the upload's recorder
  // (src/core/transfer-recorder.ts); src/custody implements both and never is imported by core.
  core: ["contract", "schemas", "types", "shared", "internal"],
  custody: ["core", "contract", "stores", "schemas", "types", "shared", "internal"],
  // Drift checks, scrubbed recordings and replay: beside core, loaded by it only when asked for.
  fidelity: ["core", "contract", "schemas", "types", "shared", "internal"],
  // The compile-time checks that hold each generated interface to its schema.
  "type-checks": ["types", "schemas", "custody"],
  stores: ["schemas", "shared", "internal"],
  webhooks: ["schemas", "shared", "internal"],
  poller: ["core", "stores", "schemas", "shared", "internal"],
  resources: ["custody", "core", "poller", "contract", "schemas", "shared", "internal"],
  client: ["resources", "custody", "fidelity", "core", "contract", "schemas", "shared"],
  openapi: ["contract", "webhooks", "schemas", "shared"],
  // The inspector's page: browser code the mock serves, importing nothing of the package.
  inspector: [],
  mock: [
    "openapi",
    "inspector",
    "webhooks",
    "fidelity",
    "contract",
    "schemas",
    "shared",
    "internal",
  ],
  testing: ["mock", "client", "core", "schemas", "shared", "internal"],
  cli: [
    "client",
    "mock",
    "fidelity",
    "openapi",
    "custody",
    "poller",
    "webhooks",
    "stores",
    "core",
    "contract",
    "schemas",
    "shared",
    "internal",
  ],
  index: [
    "client",
    "resources",
    "custody",
    "fidelity",
    "poller",
    "stores",
    "webhooks",
    "core",
    "schemas",
    "shared",
  ],
  "webhooks-entry": ["webhooks", "stores", "schemas", "shared"],
  "mock-entry": ["mock", "schemas", "shared"],
  "testing-entry": ["testing"],
  bin: ["cli"],
};

/** The layer of a file, by its path under src/. */
export function layerOf(path: string): string {
  const parts = path.split("/");
  if (parts.length === 1) {
    if (path === "index.ts") return "index";
    if (path === "cli.ts") return "bin";
    if (path === "client.ts" || path === "client-methods.ts") return "client";
    return path.replace(/\.ts$/, "");
  }
  if (path === "types/wire-checks.ts") return "type-checks";
  const [folder, file] = parts;
  if (parts.length === 2 && file === "index.ts" && folder !== undefined) {
    if (folder === "webhooks" || folder === "mock" || folder === "testing")
      return `${folder}-entry`;
  }
  return folder as string;
}

export interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
  line: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every relative import of every TypeScript file under `src`, as paths relative to it. */
export function importsOf(src: string): Import[] {
  const imports: Import[] = [];
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const add = (specifier: string, typeOnly: boolean, node: ts.Node) => {
      if (!specifier.startsWith(".")) return;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
      imports.push({
        from: relative(src, file).split(sep).join("/"),
        to: relative(src, target).split(sep).join("/"),
        typeOnly,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      });
    };
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.length > 0 &&
              clause.namedBindings.elements.every((element) => element.isTypeOnly)));
        add(node.moduleSpecifier.text, typeOnly, node);
      } else if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier !== undefined &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        const typeOnly =
          node.isTypeOnly ||
          (node.exportClause !== undefined &&
            ts.isNamedExports(node.exportClause) &&
            node.exportClause.elements.length > 0 &&
            node.exportClause.elements.every((element) => element.isTypeOnly));
        add(node.moduleSpecifier.text, typeOnly, node);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        // A dynamic import loads on use, but it is a run-time edge all the same: it counts for
        // the layers and for cycles (core once reached custody this way, and custody core).
        add(node.arguments[0].text, false, node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return imports;
}

/** Imports across layers that the table does not allow. */
export function layerViolations(imports: readonly Import[]): string[] {
  return imports.flatMap((edge) => {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (from === to) return [];
    const allowed = LAYERS[from];
    if (allowed === undefined) return [`src/${edge.from}: layer "${from}" is not in the table`];
    return allowed.includes(to)
      ? []
      : [
          `src/${edge.from}:${edge.line} imports src/${edge.to}: "${from}" may not import "${to}" (it may import ${allowed.join(", ") || "nothing"})`,
        ];
  });
}

/** The mock's model: one module per resource, each owning its slice of the state. */
export const MODEL_DIR = "mock/model/";
/** The model's shared module (context, sequence, slices), which imports no model module. */
export const MODEL_STATE = "mock/model/state.ts";

/**
 * The mock's floors, lowest first: each is a folder of src/mock/ and imports
 * only its own floor and those below it (ARCHITECTURE.md, "The mock's floors").
 */
export const MOCK_FLOORS: readonly string[] = [
  // What the model may use: the clock, the delivery runtime, faults, ids, http-error.
  "runtime",
  "model",
  // The API over HTTP: the router, the contract's binding, the routes and handlers.
  "http",
  // What a test moves besides the API: seed, the provider's side, autopilot, snapshots.
  "controls",
  // One service: its parts put together, createMockService, the msw loader.
  "service",
  // Over real HTTP: the server, the control API, the inspector.
  "server",
];

/** The floor of a file under src/mock/ (its folder), undefined for any other file. */
export function mockFloorOf(path: string): string | undefined {
  const parts = path.split("/");
  if (parts[0] !== "mock" || parts.length < 3) return undefined;
  return parts[1];
}

/** Mock files outside any floor, and imports from a lower floor of the mock into a higher one. */
export function mockFloorViolations(imports: readonly Import[]): string[] {
  const files = new Set(imports.flatMap((edge) => [edge.from, edge.to]));
  const astray = [...files]
    .filter((file) => file.startsWith("mock/") && file !== "mock/index.ts")
    .filter((file) => !MOCK_FLOORS.includes(mockFloorOf(file) ?? ""))
    .map(
      (file) =>
        `src/${file} is in no floor of the mock: put it in one of ${MOCK_FLOORS.map((f) => `src/mock/${f}/`).join(", ")}`,
    );
  const upward = imports.flatMap((edge) => {
    const from = MOCK_FLOORS.indexOf(mockFloorOf(edge.from) ?? "");
    const to = MOCK_FLOORS.indexOf(mockFloorOf(edge.to) ?? "");
    if (from === -1 || to === -1 || to <= from) return [];
    return [
      `src/${edge.from}:${edge.line} imports src/${edge.to}: the mock's "${MOCK_FLOORS[from]}" floor may not import "${MOCK_FLOORS[to]}" (above it)`,
    ];
  });
  return [...astray.sort(), ...upward.sort()];
}

/** Each cycle of run-time imports, once, as the files along it. */
export function runtimeCycles(imports: readonly Import[]): string[][] {
  return cycles(imports.filter((edge) => !edge.typeOnly));
}

/** Each cycle of imports of any kind among the model's modules, once. */
export function modelCycles(imports: readonly Import[]): string[][] {
  return cycles(
    imports.filter((edge) => edge.from.startsWith(MODEL_DIR) && edge.to.startsWith(MODEL_DIR)),
  );
}

/** Imports of a model module by the model's shared module. */
export function modelStateViolations(imports: readonly Import[]): string[] {
  return imports
    .filter((edge) => edge.from === MODEL_STATE && edge.to.startsWith(MODEL_DIR))
    .map(
      (edge) =>
        `src/${edge.from}:${edge.line} imports src/${edge.to}: the model's shared state imports no model module (each owns its slice)`,
    );
}

/** Each cycle of `edges`, once, as the files along it. */
function cycles(edges: readonly Import[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const edge of edges) {
    graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
  }
  // Tarjan's strongly connected components: each one of more than one file holds a cycle.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, indices.get(next) as number));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfImport) found.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) connect(node);
  return found;
}

/** Every problem under `root`/src, as lines to print. */
export function checkLayers(root: string): string[] {
  const imports = importsOf(join(root, "src"));
  const path = (files: string[]) => `${files.map((f) => `src/${f}`).join(" -> ")} -> (again)`;
  const runtime = runtimeCycles(imports);
  const runtimeKeys = new Set(runtime.map((files) => files.join()));
  return [
    ...layerViolations(imports),
    ...mockFloorViolations(imports),
    ...runtime.map((files) => `run-time import cycle: ${path(files)}`),
    ...modelStateViolations(imports),
    // A model cycle of run-time imports is reported above already.
    ...modelCycles(imports)
      .filter((files) => !runtimeKeys.has(files.join()))
      .map((files) => `import cycle in the model (type imports count): ${path(files)}`),
  ];
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, ".."));
  const problems = checkLayers(root);
  if (problems.length > 0) {
    console.error(
      `Layers (ARCHITECTURE.md): ${problems.length} problem(s)\n${problems.join("\n")}`,
    );
    process.exitCode = 1;
  } else {
    console.log(
      "Layers (ARCHITECTURE.md): every import points down (the mock's floors too), no run-time cycle, no cycle in the model.",
    );
  }
}

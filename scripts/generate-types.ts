// Writes src/types/wire.ts: one TypeScript interface per request and response
// schema of src/schemas, each property carrying the doc comment written on
// that property of the zod schema, so that an editor shows it on hover. The
// zod schemas stay the one source: the interfaces come from their JSON Schema
// (z.toJSONSchema, with the OpenAPI document's overrides) through
// json-schema-to-typescript, each property's description read from the
// schema's source by the TypeScript compiler (a comment costs the bundle
// nothing, where `.meta({ description })` would ship every text to every
// client); src/types/wire-checks.ts, written beside them, has the compiler
// hold each interface and its schema to each other.
//
//   node --import ./scripts/ts-resolve.mjs scripts/generate-types.ts           write both files
//   node --import ./scripts/ts-resolve.mjs scripts/generate-types.ts --check   exit 1 when stale
//
// (`npm run types`.) test/types/generated.test.ts runs the check.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile, type JSONSchema } from "json-schema-to-typescript";
import ts from "typescript";
import * as z from "zod";
import { OPERATIONS } from "../src/contract/index.js";
import * as custody from "../src/custody/entry.js";
import { override, unrepresentable } from "../src/openapi/document.js";
import * as cases from "../src/schemas/cases.js";
import { ErrorBody, ListParams, OpenEnumOther } from "../src/schemas/common.js";
import * as documents from "../src/schemas/documents.js";
import * as eventList from "../src/schemas/event-list.js";
import * as events from "../src/schemas/events.js";
import * as facilities from "../src/schemas/facilities.js";
import * as requestors from "../src/schemas/requestors.js";
import * as retrievalRequests from "../src/schemas/retrieval-requests.js";
import * as uploads from "../src/schemas/uploads.js";
import * as webhooks from "../src/schemas/webhooks.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WIRE = "src/types/wire.ts";
const CHECKS = "src/types/wire-checks.ts";

/** The schema modules, by the path the checks import them from. */
const MODULES: Record<string, Record<string, unknown>> = {
  "../schemas/cases.js": cases,
  "../schemas/common.js": { ErrorBody, ListParams },
  "../schemas/documents.js": documents,
  "../schemas/event-list.js": eventList,
  "../schemas/events.js": events,
  "../schemas/facilities.js": facilities,
  "../schemas/requestors.js": requestors,
  "../schemas/retrieval-requests.js": retrievalRequests,
  "../schemas/uploads.js": uploads,
  "../schemas/webhooks.js": webhooks,
  // Read from a custody log, not from the API, and documented the same way.
  "../custody/entry.js": { CustodyEntry: custody.CustodyEntry },
};

/** An exported schema with a type users see: an object, or a union of them. */
function isPublicShape(schema: z.ZodType): boolean {
  const def = schema._zod.def;
  if (def.type === "object") return true;
  if (def.type === "union") {
    return (def as z.core.$ZodUnionDef).options.every((o) => isPublicShape(o as z.ZodType));
  }
  return false;
}

interface Entry {
  name: string;
  module: string;
  schema: z.ZodType;
  io: "input" | "output";
  /** `export const B = A`: B is generated as an alias of A. */
  aliasOf?: string;
}

// What callers send is typed as zod input (a `Date` where one is accepted, an
// array or a string for a filter); what the service sends, as output.
const REQUESTS = new Set<z.ZodType>(
  OPERATIONS.flatMap((op) => [op.body, op.query]).filter(
    (s): s is z.ZodType => typeof s === "object" && s !== null,
  ),
);
for (const extra of [
  ListParams,
  facilities.FacilityCreate,
  requestors.RequestorCreate,
  retrievalRequests.ActionResponseAttachment,
]) {
  REQUESTS.add(extra);
}

/** Deprecated names of a schema: generated as aliases of the current name. */
const DEPRECATED = new Set(["Event"]);

function entries(): Entry[] {
  const out: Entry[] = [];
  const seen = new Map<z.ZodType, string>();
  for (const [module, exports] of Object.entries(MODULES)) {
    // Current names first, so that a deprecated one becomes the alias.
    const names = Object.entries(exports).sort(
      ([a], [b]) => Number(DEPRECATED.has(a)) - Number(DEPRECATED.has(b)),
    );
    for (const [name, value] of names) {
      if (!(value instanceof z.ZodType) || !isPublicShape(value)) continue;
      const io = REQUESTS.has(value) ? "input" : "output";
      const first = seen.get(value);
      out.push({ name, module, schema: value, io, ...(first && { aliasOf: first }) });
      if (!first) seen.set(value, name);
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** JSON Schema keywords that say nothing to a type: refinements, formats, bounds. */
const DROPPED = new Set([
  "allOf",
  "not",
  "minProperties",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "$schema",
  "$id",
]);

/**
 * Prepares one converted schema for json-schema-to-typescript: drops what has
 * no type meaning, and wraps a described `$ref` in `allOf`, so the generator
 * puts the description on the property instead of copying the referenced
 * interface under a new name to carry it.
 */
function forTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    // `properties` maps names to schemas: a property may be called `format`.
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, forTypes(v)]))
        : forTypes(value);
  }
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

// ------------------------------------------------------------- descriptions

const program = (() => {
  const config = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const files = Object.keys(MODULES).map((m) => `${ROOT}src/${m.slice("../".length, -3)}.ts`);
  return ts.createProgram(files, options);
})();
const checker = program.getTypeChecker();

/** The type of an exported schema constant, as the compiler sees it. */
function schemaType(module: string, name: string): ts.Type {
  const file = program.getSourceFile(`${ROOT}src/${module.slice("../".length, -3)}.ts`);
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  const symbol =
    moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!symbol) throw new Error(`generate-types: ${module} exports no ${name}`);
  return checker.getTypeOfSymbol(symbol);
}

/** A zod object's `shape` type, through `.optional()` and `.nullable()` (their `unwrap()`). */
function shapeOf(type: ts.Type): ts.Type | undefined {
  for (let t: ts.Type | undefined = type, depth = 0; t && depth < 4; depth++) {
    const shape = checker.getPropertyOfType(t, "shape");
    if (shape) return checker.getTypeOfSymbol(shape);
    const unwrap = checker.getPropertyOfType(t, "unwrap");
    const signature = unwrap && checker.getTypeOfSymbol(unwrap).getCallSignatures()[0];
    t = signature?.getReturnType();
  }
  return undefined;
}

/**
 * A comment's `{@link NAME}` (or `` `NAME` ``) of a spec constant, written as its value: the
 * schema's comment names the constant (a spec number is written once), the
 * generated interface's hover shows the number. A constant whose value is not
 * a literal stays named.
 */
function withValues(text: string): string {
  return text.replace(
    /\{@link ([A-Z][A-Z0-9_]*)\}|`([A-Z][A-Z0-9_]*)`/g,
    (link, linked, quoted) => {
      const name = (linked ?? quoted) as string;
      for (const module of Object.keys(MODULES)) {
        const file = program.getSourceFile(`${ROOT}src/${module.slice("../".length, -3)}.ts`);
        const moduleSymbol = file && checker.getSymbolAtLocation(file);
        const symbol =
          moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
        if (symbol === undefined) continue;
        const type = checker.getTypeOfSymbol(symbol);
        return type.isNumberLiteral() ? String(type.value) : link;
      }
      return link;
    },
  );
}

/**
 * Puts on each property of `json` the doc comment of the schema property it
 * comes from (`@default` included), and the same for nested inline objects.
 */
function describe(json: Record<string, unknown>, type: ts.Type, where: string): void {
  const properties = json.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) {
    for (const branch of (json.anyOf ?? []) as Record<string, unknown>[])
      describe(branch, type, where);
    return;
  }
  const shape = shapeOf(type);
  if (!shape) throw new Error(`generate-types: ${where} has properties but no zod shape`);
  for (const [key, property] of Object.entries(properties)) {
    const symbol = checker.getPropertyOfType(shape, key);
    if (!symbol) throw new Error(`generate-types: ${where}.${key} is not in the schema's shape`);
    const text = withValues(
      ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim(),
    );
    const fallback = `${where}.${key}`;
    const defaults = symbol
      .getJsDocTags(checker)
      .filter((tag) => tag.name === "default")
      .map((tag) => `\n\n@default ${withValues(ts.displayPartsToString(tag.text).trim())}`);
    // No comment: no description, so that the hover test names the field.
    if (text !== "") property.description = `${text}${defaults.join("")}`;
    else if (defaults.length > 0) throw new Error(`generate-types: ${fallback} has only @default`);
    describe(property, checker.getTypeOfSymbol(symbol), fallback);
  }
}

function convert(list: Entry[], io: "input" | "output"): Record<string, JSONSchema> {
  const registry = z.registry<{ id: string }>();
  for (const entry of list)
    if (!entry.aliasOf && entry.io === io) registry.add(entry.schema, { id: entry.name });
  const { schemas } = z.toJSONSchema(registry as z.core.$ZodRegistry<{ id?: string }>, {
    io,
    uri: (id) => `#/$defs/${id}`,
    unrepresentable: ({ zodSchema, ...rest }) => {
      // A `Date` a query parameter accepts (sent as its ISO string).
      if (zodSchema._zod.def.type === "date") return { tsType: "Date" };
      return unrepresentable(false)({ zodSchema, ...rest });
    },
    override: (context) => {
      override(context);
      // The open part of an open enum: any other string, without erasing the known ones.
      if (context.zodSchema === (OpenEnumOther as z.core.$ZodType)) {
        context.jsonSchema.tsType = "string & {}";
      }
      // A `const` stated for readers (`api_version`) that parsing does not hold a value to.
      if (context.zodSchema._zod.def.type === "string") delete context.jsonSchema.const;
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const entry = list.find((e) => e.name === id);
      if (!entry) throw new Error(`generate-types: ${id} is not a registered schema`);
      describe(schema as Record<string, unknown>, schemaType(entry.module, id), id);
      return [id, { ...(forTypes(schema) as object), title: id } as JSONSchema];
    }),
  );
}

const BANNER = `// Generated by scripts/generate-types.ts from the zod schemas of src/schemas: do not edit.
// Each property's comment is its schema's description. The public types
// (src/schemas/*.ts) extend these; src/types/wire-checks.ts holds them to the schemas.`;

async function wireTypes(list: Entry[]): Promise<string> {
  const inputs = convert(list, "input");
  const outputs = convert(list, "output");
  for (const id of Object.keys(inputs)) {
    if (id in outputs) throw new Error(`generate-types: ${id} is both a request and a response`);
  }
  // The converted refs point at `#/$defs/<id>`: the same place in one root.
  const root = JSON.parse(
    JSON.stringify({ $defs: { ...inputs, ...outputs } }).replaceAll(
      "#/components/schemas/",
      "#/$defs/",
    ),
  );
  let text = await compile(root, "Root", {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    strictIndexSignatures: false,
    format: false,
    unknownAny: true,
  });
  // The generator's note on where a definition was found, and its empty root.
  text = text
    .replace(
      /\n \*\s*\n \* This interface was referenced by `Root`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g,
      "",
    )
    .replace(
      /\/\*\*\n \* This interface was referenced by `Root`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n \*\/\n/g,
      "",
    )
    .replace(/export interface Root \{\n\[k: string\]: unknown\n\}\n/, "");
  const aliases = list
    .filter((e) => e.aliasOf)
    .map(
      (e) =>
        `/** The same shape as {@link ${e.aliasOf}}. */\nexport type ${e.name} = ${e.aliasOf};`,
    );
  return format(`${BANNER}\n\n${text}\n${aliases.join("\n")}\n`, WIRE);
}

function checks(list: Entry[]): string {
  const lines = [
    `// Generated by scripts/generate-types.ts: do not edit. The compiler holds each`,
    `// interface of wire.ts and its zod schema to each other: a value of the`,
    `// schema's type is one of the interface and back (for a request, what zod`,
    `// accepts is what the interface allows and what it gives is an interface).`,
    `import type * as z from "zod";`,
  ];
  const modules = [...new Set(list.map((e) => e.module))].sort();
  const alias = (module: string) =>
    (module.match(/([\w-]+)\.js$/)?.[1] ?? module)
      .split("-")
      .map((word) => word[0]?.toUpperCase() + word.slice(1))
      .join("");
  for (const module of modules) lines.push(`import type * as ${alias(module)} from "${module}";`);
  lines.push(`import type * as W from "./wire.js";`, "");
  lines.push(
    "type Holds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
    "type Request<W, In, Out> = [W] extends [In] ? ([Out] extends [W] ? true : false) : false;",
    "type Assert<T extends true> = T;",
    "",
    "export type WireChecks = [",
  );
  for (const e of list) {
    const s = `typeof ${alias(e.module)}.${e.name}`;
    lines.push(
      e.io === "input"
        ? `  Assert<Request<W.${e.name}, z.input<${s}>, z.output<${s}>>>,`
        : `  Assert<Holds<W.${e.name}, z.output<${s}>>>,`,
    );
  }
  lines.push("];", "");
  return format(lines.join("\n"), CHECKS);
}

function format(text: string, path: string): string {
  // `check --write`: formatted, and imports ordered, as `npm run format` leaves a file.
  return execFileSync("biome", ["check", "--write", `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: "utf8",
  });
}

const list = entries();
const files: Record<string, string> = {
  [WIRE]: await wireTypes(list),
  [CHECKS]: checks(list),
};
if (process.argv.includes("--check")) {
  const stale = Object.keys(files).filter((path) => {
    try {
      return readFileSync(`${ROOT}/${path}`, "utf8") !== files[path];
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(`Stale: ${stale.join(", ")}. Run: node scripts/generate-types.ts`);
    process.exit(1);
  }
} else {
  for (const [path, text] of Object.entries(files)) writeFileSync(`${ROOT}/${path}`, text);
}

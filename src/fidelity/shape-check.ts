/**
 * Holds a parsed JSON value to a zod schema the way a tolerant reader would
 * describe it: each field the schema does not have, each always-present field
 * missing, each enum value it does not list, each value of another JSON type,
 * with a JSON pointer to it. Never validation (formats and bounds are not
 * checked), never a value in what it reports.
 */
import type { z } from "zod";
import { OpenEnumOther } from "../schemas/common.js";
import { jsonType, pointerToken, type ShapeDrift } from "./drift.js";

/** The parts of a zod definition the walk reads. */
interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly discriminator?: string;
  readonly entries?: Readonly<Record<string, string | number>>;
  readonly values?: readonly unknown[];
  readonly in?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that say nothing about the JSON shape. */
const TRANSPARENT = new Set(["default", "prefault", "readonly", "catch", "nonoptional"]);

/** `schema` without the wrappers that do not change what JSON it describes. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (TRANSPARENT.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else if (def.type === "lazy" && def.getter) current = def.getter();
    else return current;
  }
}

/** Whether a field may be left out: `.optional()` (under transparent wrappers). */
function isOptional(schema: z.ZodType): boolean {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === "optional") return true;
    if ((TRANSPARENT.has(def.type) || def.type === "nullable") && def.innerType) {
      current = def.innerType;
    } else return false;
  }
}

/** What the spec says a value is, in words: `"string"`, `"string or null"`, `"one of a, b"`. */
export function describeSchema(schema: z.ZodType): string {
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case "optional":
      return describeSchema(def.innerType as z.ZodType);
    case "nullable":
      return `${describeSchema(def.innerType as z.ZodType)} or null`;
    case "enum":
      return `one of ${Object.values(def.entries ?? {}).join(", ")}`;
    case "literal":
      return `one of ${(def.values ?? []).map(String).join(", ")}`;
    case "union": {
      const open = openEnumValues(def);
      if (open) return `one of ${open.join(", ")}`;
      return [...new Set((def.options ?? []).map(describeSchema))].join(" or ");
    }
    case "custom":
      return inner === OpenEnumOther ? "string" : "any";
    case "record":
      return "object";
    case "int":
      return "number";
    default:
      return def.type;
  }
}

/** The listed values of an `openEnum` (a known enum or any other string), else undefined. */
function openEnumValues(def: Def): string[] | undefined {
  const options = def.options ?? [];
  if (options.length !== 2 || options[1] !== OpenEnumOther) return undefined;
  const known = defOf(options[0] as z.ZodType);
  return known.type === "enum" ? Object.values(known.entries ?? {}).map(String) : undefined;
}

const JSON_TYPES: Readonly<Record<string, string>> = {
  string: "string",
  number: "number",
  int: "number",
  boolean: "boolean",
  null: "null",
};

/** Where the walk is: the pointer's reference tokens, joined only when a drift is reported. */
type Path = string[];
/** A schema compiled into the walk that checks a value against it. */
type Check = (value: unknown, path: Path, out: ShapeDrift[]) => void;

const compiled = new WeakMap<z.ZodType, Check>();

const pointerOf = (path: Path): string => (path.length === 0 ? "" : `/${path.join("/")}`);

/**
 * Every departure of `value` from `schema`, with pointers under `at`.
 * Pushes onto `out` and returns it. Each schema is compiled once into a walk
 * (cached), and pointers are built only for what is reported: a page of 100
 * valid cases costs a few property reads per field.
 */
export function checkShape(
  schema: z.ZodType,
  value: unknown,
  at = "",
  out: ShapeDrift[] = [],
): ShapeDrift[] {
  compile(schema)(value, at === "" ? [] : [at.slice(1)], out);
  return out;
}

function compile(schema: z.ZodType): Check {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  // A recursive schema meets itself while compiling: it calls through the cache.
  let built: Check | undefined;
  compiled.set(schema, (value, path, out) => (built as Check)(value, path, out));
  built = build(schema);
  compiled.set(schema, built);
  return built;
}

function wrongType(schema: z.ZodType, value: unknown, path: Path, out: ShapeDrift[]): void {
  out.push({
    pointer: pointerOf(path),
    kind: "wrong_type",
    expected: describeSchema(schema),
    got: jsonType(value),
  });
}

function build(schema: z.ZodType): Check {
  const def = defOf(schema);
  if (TRANSPARENT.has(def.type) && def.innerType) return compile(def.innerType);
  switch (def.type) {
    case "pipe":
      return compile(def.in as z.ZodType);
    case "lazy":
      return (value, path, out) => compile((def.getter as () => z.ZodType)())(value, path, out);
    case "optional": {
      const inner = compile(def.innerType as z.ZodType);
      return (value, path, out) => {
        if (value !== undefined) inner(value, path, out);
      };
    }
    case "nullable": {
      const inner = compile(def.innerType as z.ZodType);
      return (value, path, out) => {
        if (value !== null) inner(value, path, out);
      };
    }
    case "object":
      return objectCheck(def.shape ?? {});
    case "array": {
      const element = compile(def.element as z.ZodType);
      return (value, path, out) => {
        if (!Array.isArray(value)) return wrongType(schema, value, path, out);
        for (let i = 0; i < value.length; i++) {
          path.push(String(i));
          element(value[i], path, out);
          path.pop();
        }
      };
    }
    case "record": {
      const item = compile(def.valueType as z.ZodType);
      return (value, path, out) => {
        if (jsonType(value) !== "object") return wrongType(schema, value, path, out);
        for (const [key, entry] of Object.entries(value as object)) {
          path.push(pointerToken(key));
          item(entry, path, out);
          path.pop();
        }
      };
    }
    case "union": {
      const open = openEnumValues(def);
      if (open) return listedCheck(schema, open);
      return (value, path, out) => {
        out.push(...checkUnion(def, value, pointerOf(path)));
      };
    }
    case "enum":
      return listedCheck(schema, Object.values(def.entries ?? {}));
    case "literal":
      return listedCheck(schema, def.values ?? []);
    case "intersection":
      return compile(def.left as z.ZodType);
    case "custom":
      if (schema !== OpenEnumOther) return () => {};
      return (value, path, out) => {
        if (typeof value !== "string") wrongType(schema, value, path, out);
      };
    default: {
      const expected = JSON_TYPES[def.type];
      if (expected === undefined) return () => {};
      return (value, path, out) => {
        if (jsonType(value) !== expected) wrongType(schema, value, path, out);
      };
    }
  }
}

function objectCheck(shape: Readonly<Record<string, z.ZodType>>): Check {
  const fields = Object.entries(shape).map(([key, field]) => ({
    key,
    token: pointerToken(key),
    check: compile(field),
    optional: isOptional(field),
    field,
  }));
  return (value, path, out) => {
    if (jsonType(value) !== "object") {
      out.push({
        pointer: pointerOf(path),
        kind: "wrong_type",
        expected: "object",
        got: jsonType(value),
      });
      return;
    }
    const record = value as Record<string, unknown>;
    for (const { key, token, check, optional, field } of fields) {
      const item = record[key];
      if (item === undefined && !Object.hasOwn(record, key)) {
        if (optional) continue;
        path.push(token);
        out.push({
          pointer: pointerOf(path),
          kind: "missing_field",
          expected: describeSchema(field),
          got: "missing",
        });
        path.pop();
        continue;
      }
      path.push(token);
      check(item, path, out);
      path.pop();
    }
    for (const key in record) {
      if (Object.hasOwn(shape, key)) continue;
      path.push(pointerToken(key));
      out.push({
        pointer: pointerOf(path),
        kind: "unknown_field",
        expected: "absent",
        got: jsonType(record[key]),
      });
      path.pop();
    }
  };
}

/** An enum or literal: a value of the right type but not listed is an unknown enum value. */
function listedCheck(schema: z.ZodType, listed: readonly unknown[]): Check {
  const values = new Set(listed);
  const types = new Set(listed.map((item) => typeof item));
  return (value, path, out) => {
    if (values.has(value)) return;
    if (!types.has(typeof value)) return wrongType(schema, value, path, out);
    out.push({
      pointer: pointerOf(path),
      kind: "unknown_enum_value",
      expected: describeSchema(schema),
      got: jsonType(value),
    });
  };
}

/**
 * A union other than an open enum: a discriminated one is checked against
 * the option its discriminator names (a known discriminated family wins over
 * a catch-all option: `AnyEvent`); any other against the option it departs
 * least from.
 */
function checkUnion(def: Def, value: unknown, at: string): ShapeDrift[] {
  const options = def.options ?? [];
  const chosen = discriminated(def, value);
  if (chosen) return checkShape(chosen, value, at);
  for (const option of options) {
    const family = defOf(unwrap(option));
    if (family.type === "union" && discriminated(family, value))
      return checkShape(option, value, at);
  }
  let best: ShapeDrift[] | undefined;
  for (const option of options) {
    const found = checkShape(option, value, at);
    if (found.length === 0) return [];
    if (best === undefined || found.length < best.length) best = found;
  }
  return best ?? [];
}

/** The option of a discriminated union that `value`'s discriminator names, if any. */
function discriminated(def: Def, value: unknown): z.ZodType | undefined {
  const key = def.discriminator;
  if (key === undefined || jsonType(value) !== "object") return undefined;
  const tag = (value as Record<string, unknown>)[key];
  return (def.options ?? []).find((option) => {
    const field = defOf(unwrap(option)).shape?.[key];
    return field !== undefined && checkShape(field, tag).length === 0;
  });
}

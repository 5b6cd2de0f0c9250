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

/**
 * Every departure of `value` from `schema`, with pointers under `at`.
 * Pushes onto `out` and returns it.
 */
export function checkShape(
  schema: z.ZodType,
  value: unknown,
  at = "",
  out: ShapeDrift[] = [],
): ShapeDrift[] {
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case "optional":
      if (value !== undefined) checkShape(def.innerType as z.ZodType, value, at, out);
      return out;
    case "nullable":
      if (value !== null) checkShape(def.innerType as z.ZodType, value, at, out);
      return out;
    case "object":
      checkObject(def.shape ?? {}, value, at, out);
      return out;
    case "array":
      if (!Array.isArray(value)) return wrongType(inner, value, at, out);
      value.forEach((item, i) => {
        checkShape(def.element as z.ZodType, item, `${at}/${i}`, out);
      });
      return out;
    case "record":
      if (jsonType(value) !== "object") return wrongType(inner, value, at, out);
      for (const [key, item] of Object.entries(value as object)) {
        checkShape(def.valueType as z.ZodType, item, `${at}/${pointerToken(key)}`, out);
      }
      return out;
    case "union":
      return checkUnion(inner, def, value, at, out);
    case "enum":
      return checkListed(inner, Object.values(def.entries ?? {}), value, at, out);
    case "literal":
      return checkListed(inner, def.values ?? [], value, at, out);
    case "intersection":
      checkShape(def.left as z.ZodType, value, at, out);
      return out;
    case "custom":
      if (inner === OpenEnumOther && typeof value !== "string") wrongType(inner, value, at, out);
      return out;
    default: {
      const expected = JSON_TYPES[def.type];
      if (expected !== undefined && jsonType(value) !== expected) wrongType(inner, value, at, out);
      return out;
    }
  }
}

function wrongType(schema: z.ZodType, value: unknown, at: string, out: ShapeDrift[]): ShapeDrift[] {
  out.push({
    pointer: at,
    kind: "wrong_type",
    expected: describeSchema(schema),
    got: jsonType(value),
  });
  return out;
}

function checkObject(
  shape: Readonly<Record<string, z.ZodType>>,
  value: unknown,
  at: string,
  out: ShapeDrift[],
): void {
  if (jsonType(value) !== "object") {
    out.push({ pointer: at, kind: "wrong_type", expected: "object", got: jsonType(value) });
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key in shape) {
    const field = shape[key] as z.ZodType;
    const pointer = `${at}/${pointerToken(key)}`;
    if (Object.hasOwn(record, key)) checkShape(field, record[key], pointer, out);
    else if (!isOptional(field)) {
      out.push({ pointer, kind: "missing_field", expected: describeSchema(field), got: "missing" });
    }
  }
  for (const key in record) {
    if (!Object.hasOwn(shape, key)) {
      out.push({
        pointer: `${at}/${pointerToken(key)}`,
        kind: "unknown_field",
        expected: "absent",
        got: jsonType(record[key]),
      });
    }
  }
}

/** An enum or literal: a value of the right type but not listed is an unknown enum value. */
function checkListed(
  schema: z.ZodType,
  listed: readonly unknown[],
  value: unknown,
  at: string,
  out: ShapeDrift[],
): ShapeDrift[] {
  if (listed.includes(value)) return out;
  if (listed.some((item) => typeof item === typeof value)) {
    out.push({
      pointer: at,
      kind: "unknown_enum_value",
      expected: describeSchema(schema),
      got: jsonType(value),
    });
    return out;
  }
  return wrongType(schema, value, at, out);
}

/**
 * A union: an open enum is a listed string or a drift; a discriminated one is
 * checked against the option its discriminator names; any other against the
 * option it departs least from.
 */
function checkUnion(
  schema: z.ZodType,
  def: Def,
  value: unknown,
  at: string,
  out: ShapeDrift[],
): ShapeDrift[] {
  const open = openEnumValues(def);
  if (open) return checkListed(schema, open, value, at, out);
  const options = def.options ?? [];
  const chosen = discriminated(def, value);
  if (chosen) return checkShape(chosen, value, at, out);
  // A known discriminated family wins over a catch-all option (`AnyEvent`: a known type's data is held to it).
  for (const option of options) {
    const family = defOf(unwrap(option));
    if (family.type === "union" && discriminated(family, value)) {
      return checkShape(option, value, at, out);
    }
  }
  let best: ShapeDrift[] | undefined;
  for (const option of options) {
    const found = checkShape(option, value, at);
    if (found.length === 0) return out;
    if (best === undefined || found.length < best.length) best = found;
  }
  out.push(...(best ?? []));
  return out;
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

/**
 * Scrubbing straight to JSON text: what the recorder writes for each body.
 * A page of 100 cases scrubbed into new objects and then serialized walked
 * the page twice and built a copy of it only to throw it away; here each
 * schema is compiled once into a function that writes the scrubbed text as
 * it walks (field names quoted once, each replacement's literal made once per
 * input). The text is exactly `JSON.stringify(scrubber.scrub(schema, value))`:
 * the shapes this compiles (objects, arrays, marked fields, scalars) follow
 * the same rules as scrubber.ts, and every other shape (unions, records, lazy
 * schemas) is handed to the scrubber itself.
 */
import type { z } from "zod";
import { sensitivityOf } from "../schemas/sensitive.js";
import { defOf, type Scrubber, WRAPPERS } from "./scrubber.js";

/** A schema compiled into the function that writes a value's scrubbed JSON; undefined as JSON.stringify leaves it out. */
type Emit = (value: unknown, scrubber: Scrubber) => string | undefined;

const emits = new WeakMap<z.ZodType, Emit>();

/** `JSON.stringify(scrubber.scrub(schema, value))`, without building the scrubbed copy. */
export function scrubbedJson(
  schema: z.ZodType | undefined,
  value: unknown,
  scrubber: Scrubber,
): string | undefined {
  return schema === undefined ? unknownJson(value, scrubber) : emitOf(schema)(value, scrubber);
}

const unknownJson: Emit = (value, scrubber) => JSON.stringify(scrubber.unknown(value));

function emitOf(schema: z.ZodType): Emit {
  const known = emits.get(schema);
  if (known !== undefined) return known;
  // A recursive schema meets itself while compiling: it calls through the cache.
  let built: Emit | undefined;
  emits.set(schema, (value, scrubber) => (built as Emit)(value, scrubber));
  built = buildEmit(schema);
  emits.set(schema, built);
  return built;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Kept as it is, if it is a scalar; anything else is not the spec's. */
const scalar: Emit = (value, scrubber) =>
  typeof value === "object" && value !== null
    ? unknownJson(value, scrubber)
    : JSON.stringify(value);

function buildEmit(schema: z.ZodType): Emit {
  const mark = sensitivityOf(schema);
  if (mark !== undefined) return (value, scrubber) => scrubber.replaceJson(mark, value);
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) {
    const inner = emitOf(def.innerType);
    return (value, scrubber) =>
      value === null ? "null" : value === undefined ? undefined : inner(value, scrubber);
  }
  switch (def.type) {
    case "pipe":
      return emitOf(def.in as z.ZodType);
    case "intersection":
      return emitOf(def.left as z.ZodType);
    case "object":
      return objectEmit(def.shape ?? {});
    case "array":
      return arrayEmit(emitOf(def.element as z.ZodType));
    case "string":
    case "number":
    case "int":
    case "boolean":
    case "null":
    case "enum":
    case "literal":
    case "custom":
      return scalar;
    default:
      // Unions, records, lazy schemas: rare in a body, scrubbed by the scrubber's own walk.
      return (value, scrubber) => JSON.stringify(scrubber.scrub(schema, value));
  }
}

function arrayEmit(element: Emit): Emit {
  return (value, scrubber) => {
    if (!Array.isArray(value)) return unknownJson(value, scrubber);
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += element(value[i], scrubber) ?? "null";
    }
    return `${out}]`;
  };
}

function objectEmit(shape: Readonly<Record<string, z.ZodType>>): Emit {
  const fields = new Map(
    Object.entries(shape).map(([key, field]) => [
      key,
      { name: `${JSON.stringify(key)}:`, emit: emitOf(field) },
    ]),
  );
  return (value, scrubber) => {
    if (!isObject(value)) return unknownJson(value, scrubber);
    let out = "{";
    for (const key in value) {
      const field = fields.get(key);
      const text =
        field === undefined ? unknownJson(value[key], scrubber) : field.emit(value[key], scrubber);
      if (text === undefined) continue;
      if (out.length > 1) out += ",";
      out += field === undefined ? `${JSON.stringify(key)}:${text}` : field.name + text;
    }
    return `${out}}`;
  };
}

/**
 * Which fields carry a person's data or a secret: marked where each field is
 * declared (`title: personal("title", z.string())`), so that the schemas stay
 * the one place that says it. The recorder's scrubber (src/fidelity) and any
 * redaction read the marks by walking a schema; nothing keeps a second list
 * of field names.
 *
 * A mark is an entry in a WeakMap keyed by the field's schema instance, not
 * zod `.meta()`: meta lands in zod's global registry and in every bundle that
 * holds a schema, while this costs one map and a function.
 */
import type { z } from "zod";

/**
 * What a personal field holds, which decides the kind of fictional value
 * that replaces it (an email stays a valid email, a birth date a valid date).
 */
export type PersonalKind =
  | "title"
  | "name"
  | "birth_date"
  | "address"
  | "phone"
  | "email"
  | "text"
  | "file_name"
  | "document_path";

/** A personal field, a secret (never written), or a presigned address (its token never written). */
export type Sensitivity = PersonalKind | "secret" | "presigned_url";

const marks = new WeakMap<object, Sensitivity>();

/**
 * Marks a field as holding `kind`; returns a copy of `schema` (a shared
 * schema such as `IsoDate` stays unmarked), which validates and documents
 * exactly as `schema` does.
 */
export function personal<S extends z.ZodType>(kind: PersonalKind, schema: S): S {
  return mark(kind, schema);
}

/** Marks a field holding a credential: recordings never carry its value. */
export function secret<S extends z.ZodType>(schema: S): S {
  return mark("secret", schema);
}

/** Marks a presigned address: recordings keep its origin, never its token (path or query). */
export function presignedUrl<S extends z.ZodType>(schema: S): S {
  return mark("presigned_url", schema);
}

function mark<S extends z.ZodType>(sensitivity: Sensitivity, schema: S): S {
  // A copy whose parent is `schema`: zod's registry (the OpenAPI document's meta) reads through it.
  const own = schema.clone() as S;
  marks.set(own, sensitivity);
  return own;
}

/** The mark of exactly this schema instance (wrappers such as `.optional()` are not unwrapped here). */
export function sensitivityOf(schema: z.ZodType): Sensitivity | undefined {
  return marks.get(schema);
}

/**
 * Replaces what a recording must not carry. The schemas say which fields
 * are personal (src/schemas/sensitive.ts): each is replaced by a fictional
 * value of its kind (an email stays an email, a birth date a date), the same
 * input by the same value for the life of one scrubber (one cassette), so
 * relations hold. The value is an HMAC of the input under a key drawn at
 * random and never written, so no one can test a guess (a birth date, a
 * name) against a cassette. Secrets become a placeholder; presigned
 * addresses keep their origin only. Fields the spec does not have are kept
 * in shape but not in value (strings replaced, numbers zeroed), so a drift
 * report still sees them; error messages, free text from the service that
 * may quote a request, are replaced.
 */
/**
 * What the scrubber needs of node:crypto, handed in: the recorder loads it
 * with a dynamic import, so that no chunk a browser or a Worker may bundle
 * imports a Node built-in at its top (the fidelity code is a lazy chunk of
 * the client).
 */
export type ScrubberCrypto = Pick<typeof import("node:crypto"), "createHmac" | "randomBytes">;

import type { z } from "zod";
import { type PersonalKind, type Sensitivity, sensitivityOf } from "../schemas/sensitive.js";
import { checkShape } from "./shape-check.js";

/** What replaces every webhook secret. */
export const SCRUBBED_SECRET = "whsec_scrubbed";
/** What replaces every error message. */
export const SCRUBBED_MESSAGE = "(scrubbed)";
/** The path every presigned address gets (its token, path and query, never kept). */
export const SCRUBBED_PRESIGNED_PATH = "/scrubbed";

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly discriminator?: string;
  readonly in?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly left?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "readonly",
  "catch",
  "nonoptional",
]);

const FIRST = ["Alex", "Sam", "Robin", "Jordan", "Casey", "Morgan", "Taylor", "Jamie"];
const LAST = ["Placeholder", "Fictive", "Sample", "Example", "Standin", "Mockley"];

export class Scrubber {
  readonly #key: Buffer;
  readonly #createHmac: ScrubberCrypto["createHmac"];
  /** Replacements made so far, by kind then input: a repeated value costs two map reads. */
  readonly #seen = new Map<PersonalKind, Map<string, string>>();

  constructor(crypto: ScrubberCrypto, key: Buffer = crypto.randomBytes(32)) {
    this.#createHmac = crypto.createHmac;
    this.#key = key;
  }

  /** `value` with every marked field of `schema` replaced; unknown fields keep their shape only. */
  scrub(schema: z.ZodType | undefined, value: unknown): unknown {
    return schema === undefined ? this.unknown(value) : planOf(schema)(value, this);
  }

  /** A value the spec does not describe: its shape, without its text or numbers. */
  unknown(value: unknown): unknown {
    if (typeof value === "string") return this.replace("text", value);
    if (typeof value === "number") return 0;
    if (Array.isArray(value)) return value.map((item) => this.unknown(item));
    if (typeof value === "object" && value !== null) return this.entries(value, () => undefined);
    return value;
  }

  /** The error body of a failed call: the code kept, the message replaced. */
  errorBody(value: unknown): unknown {
    const error = (value as { error?: unknown } | null)?.error;
    if (typeof error !== "object" || error === null) return this.unknown(value);
    const { code, message, ...rest } = error as Record<string, unknown>;
    const others = Object.fromEntries(
      Object.entries(value as Record<string, unknown>).filter(([key]) => key !== "error"),
    );
    return {
      ...(this.unknown(others) as object),
      error: {
        ...(code === undefined
          ? {}
          : { code: typeof code === "string" ? code : this.unknown(code) }),
        ...(message === undefined ? {} : { message: SCRUBBED_MESSAGE }),
        ...(this.unknown(rest) as object),
      },
    };
  }

  /** An object's entries, each scrubbed by the schema `schemaOf` gives its key. */
  entries(value: unknown, schemaOf: (key: string) => z.ZodType | undefined): unknown {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return this.unknown(value);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = this.scrub(schemaOf(key), item);
    return out;
  }

  /** The union option `value` belongs to: the one it departs least from. */
  option(def: Def, value: unknown): z.ZodType | undefined {
    let best: { option: z.ZodType; drifts: number } | undefined;
    for (const option of def.options ?? []) {
      const drifts = checkShape(option, value).length;
      if (drifts === 0) return option;
      if (best === undefined || drifts < best.drifts) best = { option, drifts };
    }
    return best?.option;
  }

  /** `value` of a field marked `mark`, replaced (the same input by the same value). */
  replace(mark: Sensitivity, value: unknown): unknown {
    if (typeof value !== "string") return this.unknown(value);
    if (mark === "secret") return SCRUBBED_SECRET;
    if (mark === "presigned_url") return presignedOrigin(value);
    if (value === "") return value;
    let seen = this.#seen.get(mark);
    if (seen === undefined) {
      seen = new Map();
      this.#seen.set(mark, seen);
    }
    let replaced = seen.get(value);
    if (replaced === undefined) {
      const digest = this.#createHmac("sha256", this.#key).update(`${mark}\u0000${value}`).digest();
      replaced = fictional(mark, digest, value);
      seen.set(value, replaced);
    }
    return replaced;
  }
}

/** The address's origin and a fixed path: the token (path or query) never kept. */
function presignedOrigin(value: string): string {
  return URL.canParse(value)
    ? `${new URL(value).origin}${SCRUBBED_PRESIGNED_PATH}`
    : `https://presigned.invalid${SCRUBBED_PRESIGNED_PATH}`;
}

/** A fictional value of `kind` from a digest: valid where the schema checks it (email, date). */
function fictional(kind: PersonalKind, digest: Buffer, original: string): string {
  const tag = digest.subarray(0, 4).toString("hex");
  const first = FIRST[(digest[4] as number) % FIRST.length];
  const last = LAST[(digest[5] as number) % LAST.length];
  switch (kind) {
    case "name":
      return `${first} ${last}-${tag}`;
    case "title":
      return `${last}-${tag} v. Example Holdings`;
    case "birth_date": {
      const year = 1930 + (digest.readUInt16BE(6) % 75);
      const month = 1 + ((digest[8] as number) % 12);
      const day = 1 + ((digest[9] as number) % 28);
      return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
    }
    case "address":
      return `${1 + (digest.readUInt16BE(6) % 999)} ${last} Street ${tag}, Exampleton`;
    case "phone":
      return `+1 555 01${String(digest.readUInt32BE(6) % 1_000_000).padStart(6, "0")}`;
    case "email":
      return `person-${tag}@example.test`;
    case "file_name": {
      const extension = /\.[A-Za-z0-9]{1,5}$/.exec(original)?.[0] ?? "";
      return `file-${tag}${extension}`;
    }
    case "document_path":
      return `/folder-${tag}`;
    default:
      return `Scrubbed text ${tag}.`;
  }
}

/** A schema compiled into the function that scrubs a value by it. */
type Plan = (value: unknown, scrubber: Scrubber) => unknown;

const plans = new WeakMap<z.ZodType, Plan>();

/** The plan of `schema`, compiled once: a page of 100 cases is then a few calls per field. */
function planOf(schema: z.ZodType): Plan {
  const known = plans.get(schema);
  if (known !== undefined) return known;
  // A recursive schema meets itself while compiling: it calls through the cache.
  let built: Plan | undefined;
  plans.set(schema, (value, scrubber) => (built as Plan)(value, scrubber));
  built = buildPlan(schema);
  plans.set(schema, built);
  return built;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Kept as it is, if it is a scalar; anything else is not the spec's. */
const scalar: Plan = (value, scrubber) =>
  typeof value === "object" && value !== null ? scrubber.unknown(value) : value;

function buildPlan(schema: z.ZodType): Plan {
  const mark = sensitivityOf(schema);
  if (mark !== undefined) return (value, scrubber) => scrubber.replace(mark, value);
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) {
    const inner = planOf(def.innerType);
    return (value, scrubber) =>
      value === null || value === undefined ? value : inner(value, scrubber);
  }
  switch (def.type) {
    case "pipe":
      return planOf(def.in as z.ZodType);
    case "lazy":
      return (value, scrubber) => planOf((def.getter as () => z.ZodType)())(value, scrubber);
    case "object":
      return objectPlan(def.shape ?? {});
    case "array": {
      const element = planOf(def.element as z.ZodType);
      return (value, scrubber) =>
        Array.isArray(value)
          ? value.map((item) => element(item, scrubber))
          : scrubber.unknown(value);
    }
    case "record":
      return (value, scrubber) => scrubber.entries(value, () => def.valueType);
    case "union":
      // A scalar of a union (an open enum, a date or a Date) is kept as its listed types are.
      return (value, scrubber) =>
        typeof value === "object" && value !== null
          ? scrubber.scrub(scrubber.option(def, value), value)
          : value;
    case "intersection":
      return planOf(def.left as z.ZodType);
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
      return (value, scrubber) => scrubber.unknown(value);
  }
}

function objectPlan(shape: Readonly<Record<string, z.ZodType>>): Plan {
  const fields = new Map(Object.entries(shape).map(([key, field]) => [key, planOf(field)]));
  return (value, scrubber) => {
    if (!isObject(value)) return scrubber.unknown(value);
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const plan = fields.get(key);
      out[key] = plan === undefined ? scrubber.unknown(value[key]) : plan(value[key], scrubber);
    }
    return out;
  };
}

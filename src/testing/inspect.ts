/**
 * Values as Node prints them, for the leak check: `util.inspect` (what
 * `console.log` uses) with the depth and lengths opened up, so that what a
 * deeper-looking logger would print is searched too: `Map` and `Set`
 * entries, circular objects, an error's own properties, `cause` and
 * `AggregateError.errors`. Where node:util is not available (a browser), a
 * small walker of the same shapes stands in.
 */

type Util = {
  inspect(value: unknown, options: object): string;
  formatWithOptions(options: object, ...args: unknown[]): string;
};

/** Deep enough for any log record or error chain, bounded so a huge graph stays cheap. */
const OPTIONS = {
  depth: 12,
  maxArrayLength: 1000,
  maxStringLength: Number.POSITIVE_INFINITY,
  breakLength: Number.POSITIVE_INFINITY,
  colors: false,
  customInspect: true,
  getters: false,
};

let util: Util | null | undefined;

function nodeUtil(): Util | undefined {
  if (util === undefined) {
    try {
      const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
        .process?.getBuiltinModule;
      util = typeof get === "function" ? ((get("node:util") as Util | undefined) ?? null) : null;
    } catch {
      util = null;
    }
  }
  return util ?? undefined;
}

/** One value as `util.inspect` prints it (depth 12, strings in full). */
export function inspectValue(value: unknown): string {
  const u = nodeUtil();
  try {
    return u ? u.inspect(value, OPTIONS) : walk(value, new Set(), 0);
  } catch {
    return "";
  }
}

/**
 * A console call's arguments as one line, as Node's console prints them
 * (`%s`/`%d`/`%o`/`%j` substitutions included), with inspect's limits opened up.
 */
export function formatLogLine(args: readonly unknown[]): string {
  const u = nodeUtil();
  try {
    if (u) return u.formatWithOptions(OPTIONS, ...args);
  } catch {
    // A value whose inspection throws: fall back to one value at a time.
  }
  return args.map((arg) => (typeof arg === "string" ? arg : inspectValue(arg))).join(" ");
}

function walk(value: unknown, seen: Set<object>, depth: number): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol" || typeof value === "function") return String(value);
  if (value === null || typeof value !== "object") return String(value);
  if (seen.has(value)) return "[Circular]";
  if (depth > OPTIONS.depth) return "[Object]";
  seen.add(value);
  try {
    const next = (v: unknown) => walk(v, seen, depth + 1);
    if (value instanceof Map) {
      return `Map(${value.size}) { ${[...value].map(([k, v]) => `${next(k)} => ${next(v)}`).join(", ")} }`;
    }
    if (value instanceof Set) return `Set(${value.size}) { ${[...value].map(next).join(", ")} }`;
    if (Array.isArray(value)) return `[ ${value.map(next).join(", ")} ]`;
    const parts = Object.entries(value).map(([k, v]) => `${k}: ${next(v)}`);
    if (value instanceof Error) {
      const e = value as Error & { errors?: unknown };
      if (e.cause !== undefined) parts.push(`[cause]: ${next(e.cause)}`);
      if (Array.isArray(e.errors)) parts.push(`[errors]: ${next(e.errors)}`);
      return `${e.stack ?? String(e)} { ${parts.join(", ")} }`;
    }
    return `{ ${parts.join(", ")} }`;
  } finally {
    seen.delete(value);
  }
}

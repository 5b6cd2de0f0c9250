/**
 * The objects a cassette saw (cases, requestors, case documents), for a
 * reference server seeded with them: each answer of an operation that
 * returns one (or a page of them) is read with the object's schema, and what
 * the schema cannot read (a drifted object) is left out.
 */
import type { z } from "zod";
import { CONTRACT, type Operation } from "../contract/index.js";
import { type Case, Case as CaseSchema } from "../schemas/cases.js";
import { type Document, Document as DocumentSchema } from "../schemas/documents.js";
import { type Requestor, Requestor as RequestorSchema } from "../schemas/requestors.js";
import type { Cassette } from "./cassette-format.js";

/** What a cassette saw, each object once, oldest `created_at` first. */
export interface CassetteObjects {
  readonly cases: readonly Case[];
  readonly requestors: readonly Requestor[];
  readonly documents: readonly Document[];
}

/** Which objects to keep. */
export interface CassetteObjectsOptions {
  /**
   * `"first"`: each object as first seen, and none the cassette created
   * (a replay creates those again); `"last"`: each as last seen, created ones
   * included (a server for tests, with what the cassette saw).
   */
  readonly version: "first" | "last";
}

type Kind = keyof CassetteObjects;

const KINDS: readonly [Kind, z.ZodType][] = [
  ["cases", CaseSchema],
  ["requestors", RequestorSchema],
  ["documents", DocumentSchema],
];

/** The kind of object an operation answers with (itself or a page of them), if one of {@link KINDS}. */
function kindOf(op: Operation): Kind | undefined {
  const response = op.response as z.ZodType | undefined;
  if (response === undefined) return undefined;
  const item = op.list
    ? (response as unknown as { shape: { results: { element: z.ZodType } } }).shape.results.element
    : response;
  return KINDS.find(([, schema]) => schema === item)?.[0];
}

const operations = new Map<string, Operation>(
  Object.values(CONTRACT).map((op) => [op.operationId, op as Operation]),
);

export function cassetteObjects(
  cassette: Cassette,
  options: CassetteObjectsOptions = { version: "last" },
): CassetteObjects {
  const seen = { cases: new Map(), requestors: new Map(), documents: new Map() } as Record<
    Kind,
    Map<string, { id: string; created_at: string }>
  >;
  const created = new Set<string>();
  for (const entry of cassette.entries) {
    const op = operations.get(entry.operation);
    const kind = op && kindOf(op);
    const { status, body } = entry.response;
    if (op === undefined || kind === undefined || status >= 300 || body === undefined) continue;
    const schema = KINDS.find(([name]) => name === kind)?.[1] as z.ZodType;
    const items = op.list ? ((body as { results?: unknown }).results ?? []) : [body];
    for (const item of Array.isArray(items) ? items : []) {
      const parsed = schema.safeParse(item);
      if (!parsed.success) continue;
      const object = parsed.data as { id: string; created_at: string };
      if (op.method === "POST") created.add(object.id);
      if (options.version === "last" || !seen[kind].has(object.id))
        seen[kind].set(object.id, object);
    }
  }
  const kept = <T>(kind: Kind): T[] =>
    [...seen[kind].values()]
      .filter((object) => options.version === "last" || !created.has(object.id))
      .sort((a, b) => a.created_at.localeCompare(b.created_at)) as T[];
  return { cases: kept("cases"), requestors: kept("requestors"), documents: kept("documents") };
}

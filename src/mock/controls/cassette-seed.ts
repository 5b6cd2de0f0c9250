/**
 * `createMockService({ from })`: a server that starts with the objects a
 * cassette saw (docs/fidelity.md), their recorded ids kept. A thin layer over
 * the model's `place*` functions; which objects, and in which version, is the
 * fidelity layer's reading of the cassette.
 */
import type { Cassette } from "../../fidelity/cassette-format.js";
import { CassetteFormatError, parseCassette } from "../../fidelity/cassette-format.js";
import { cassetteObjects } from "../../fidelity/cassette-objects.js";
import { type CaseRecord, placeCase } from "../model/cases.js";
import { placeDocument } from "../model/documents.js";
import { placeRequestor } from "../model/requestors.js";
import type { ModelContext } from "../model/state.js";

export {
  type Cassette,
  type CassetteEntry,
  CassetteFormatError,
  parseCassette,
} from "../../fidelity/cassette-format.js";

/** A cassette file's path, or a cassette already loaded (`parseCassette(text)`). */
export type MockCassetteSource = string | Cassette;

type NodeFs = { readFileSync(path: string, encoding: "utf8"): string };

/** Reads a cassette file without a static `node:fs` import (medrecords/mock also runs in browsers). */
function readCassetteFile(path: string): Cassette {
  const fs = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.("node:fs") as NodeFs | undefined;
  if (fs === undefined) {
    throw new TypeError("createMockService: from as a path needs Node; pass a loaded cassette.");
  }
  try {
    return parseCassette(fs.readFileSync(path, "utf8"));
  } catch (error) {
    const reason =
      error instanceof CassetteFormatError
        ? error.message
        : ((error as { code?: string }).code ?? String(error));
    throw new TypeError(`createMockService: from: cannot read the cassette ${path}: ${reason}.`);
  }
}

/**
 * Places the objects `from` saw: as last seen (`"last"`), or as first seen
 * without the ones it created (`"first"`, for a replay that creates them again).
 */
export function seedFromCassette(
  ctx: ModelContext,
  from: MockCassetteSource,
  version: "first" | "last",
): void {
  const cassette = typeof from === "string" ? readCassetteFile(from) : from;
  if (typeof cassette !== "object" || cassette === null || !Array.isArray(cassette.entries)) {
    throw new TypeError("createMockService: from must be a cassette's path or a loaded cassette.");
  }
  const objects = cassetteObjects(cassette, { version });
  for (const kase of objects.cases) {
    placeCase(ctx, {
      description: null,
      client_date_of_birth: null,
      client_address: null,
      client_phone: null,
      client_email: null,
      date_of_injury: null,
      deposition_date: null,
      external_id: null,
      ...kase,
    } as CaseRecord);
  }
  for (const requestor of objects.requestors) placeRequestor(ctx, requestor);
  for (const document of objects.documents) placeDocument(ctx, { path: null, ...document });
}

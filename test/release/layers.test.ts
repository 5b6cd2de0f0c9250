/**
 * The layer check (scripts/check-layers.ts, run by `npm test`): it names an
 * import that points up and a run-time cycle, ignores a type-only cycle, and
 * finds nothing to report in src/ as it stands.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLayers } from "../../scripts/check-layers.ts";

const root = resolve(import.meta.dirname, "../..");
let tmp: string | undefined;

function project(files: Record<string, string>): string {
  tmp = mkdtempSync(join(tmpdir(), "medrecords-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tmp, path)), { recursive: true });
    writeFileSync(join(tmp, path), text);
  }
  return tmp;
}

afterEach(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

describe("the layer check", () => {
  it("passes on the sources", () => {
    expect(checkLayers(root)).toEqual([]);
  });

  it("names an import that points up, with its line", () => {
    const dir = project({
      "src/core/errors.ts": "export class E extends Error {}\n",
      "src/webhooks/verify.ts": '// why\nimport { E } from "../core/errors.js";\nexport { E };\n',
      "src/openapi/document.ts":
        'import type { M } from "../mock/service.js";\nexport type D = M;\n',
      "src/mock/service.ts": "export type M = 1;\n",
    });
    expect(checkLayers(dir)).toEqual([
      expect.stringMatching(
        /^src\/openapi\/document\.ts:1 imports src\/mock\/service\.ts: "openapi" may not import "mock"/,
      ),
      expect.stringMatching(
        /^src\/webhooks\/verify\.ts:2 imports src\/core\/errors\.ts: "webhooks" may not import "core"/,
      ),
    ]);
  });

  it("names a run-time cycle, and leaves a type-only one alone", () => {
    const dir = project({
      "src/mock/model/state.ts": 'import { b } from "./retrieval-state.js";\nexport const a = b;\n',
      "src/mock/model/retrieval-state.ts":
        'import { c } from "./facilities.js";\nexport const b = c;\n',
      "src/mock/model/facilities.ts":
        'import { a } from "./state.js";\nexport const c = () => a;\n',
      "src/mock/model/cases.ts": 'import type { D } from "./documents.js";\nexport type C = D;\n',
      "src/mock/model/documents.ts": 'import type { C } from "./cases.js";\nexport type D = C;\n',
    });
    expect(checkLayers(dir)).toEqual([
      "run-time import cycle: src/mock/model/facilities.ts -> src/mock/model/state.ts -> src/mock/model/retrieval-state.ts -> (again)",
    ]);
  });
});

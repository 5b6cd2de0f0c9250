import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkLayers } from "../../scripts/check-layers.ts";
import { tempProjects } from "../helpers/temp-project.js";

const root = resolve(import.meta.dirname, "../..");
const project = tempProjects("medrecords-layers-");

describe("the layer check", () => {
  it("passes on the sources", () => {
    expect(checkLayers(root)).toEqual([]);
  });

  it("names an import that points up, with its line", () => {
    const dir = project({
      "src/core/errors.ts": "export class E extends Error {}\n",
      "src/webhooks/verify.ts": '// why\nimport { E } from "../core/errors.js";\nexport { E };\n',
      "src/openapi/document.ts":
        'import type { M } from "../mock/service/service.js";\nexport type D = M;\n',
      "src/mock/service/service.ts": "export type M = 1;\n",
    });
    expect(checkLayers(dir)).toEqual([
      expect.stringMatching(
        /^src\/openapi\/document\.ts:1 imports src\/mock\/service\/service\.ts: "openapi" may not import "mock"/,
      ),
      expect.stringMatching(
        /^src\/webhooks\/verify\.ts:2 imports src\/core\/errors\.ts: "webhooks" may not import "core"/,
      ),
    ]);
  });

  it("names a run-time cycle, and leaves a type-only one alone outside the model", () => {
    const dir = project({
      "src/mock/service/service.ts": 'import { b } from "./seed.js";\nexport const a = b;\n',
      "src/mock/service/seed.ts": 'import { c } from "./router.js";\nexport const b = c;\n',
      "src/mock/service/router.ts":
        'import { a } from "./service.js";\nexport const c = () => a;\n',
      "src/core/request.ts": 'import type { D } from "./retry.js";\nexport type C = D;\n',
      "src/core/retry.ts": 'import type { C } from "./request.js";\nexport type D = C;\n',
    });
    const problems = checkLayers(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^run-time import cycle: /);
    for (const file of ["service", "seed", "router"]) {
      expect(problems[0]).toContain(`src/mock/service/${file}.ts`);
    }
  });

  it("names a cycle through a dynamic import, and a lower layer reaching an upper one lazily", () => {
    const dir = project({
      "src/core/download.ts":
        'export async function save() {\n  return (await import("../custody/save.js")).saveToFile();\n}\nexport const fetchContent = 1;\n',
      "src/core/uploads.ts": 'import type { R } from "../custody/record.js";\nexport type U = R;\n',
      "src/custody/save.ts":
        'import { fetchContent } from "../core/download.js";\nexport const saveToFile = () => fetchContent;\n',
      "src/custody/record.ts": "export type R = 1;\n",
    });
    const problems = checkLayers(dir);
    expect(problems).toEqual([
      expect.stringMatching(
        /^src\/core\/download\.ts:2 imports src\/custody\/save\.ts: "core" may not import "custody"/,
      ),
      expect.stringMatching(
        /^src\/core\/uploads\.ts:1 imports src\/custody\/record\.ts: "core" may not import "custody"/,
      ),
      expect.stringMatching(/^run-time import cycle: src\/(core\/download|custody\/save)\.ts -> /),
    ]);
    expect(problems[2]).toContain("src/core/download.ts");
    expect(problems[2]).toContain("src/custody/save.ts");
  });

  it("names a dynamic-import cycle inside one layer", () => {
    const dir = project({
      "src/custody/transfer.ts":
        'export const go = async () => (await import("./record.js")).r;\nexport const t = 1;\n',
      "src/custody/record.ts": 'import { t } from "./transfer.js";\nexport const r = t;\n',
    });
    expect(checkLayers(dir)).toEqual([
      expect.stringMatching(/^run-time import cycle: src\/custody\/(transfer|record)\.ts -> /),
    ]);
  });

  it("names a type-only cycle among the model's modules, and a model module state.ts imports", () => {
    const dir = project({
      "src/mock/model/state.ts": 'import type { C } from "./cases.js";\nexport type S = C;\n',
      "src/mock/model/cases.ts": 'import type { D } from "./documents.js";\nexport type C = D;\n',
      "src/mock/model/documents.ts": 'import type { C } from "./cases.js";\nexport type D = C;\n',
      "src/mock/model/uploads.ts": 'import type { S } from "./state.js";\nexport type U = S;\n',
    });
    expect(checkLayers(dir)).toEqual([
      "src/mock/model/state.ts:1 imports src/mock/model/cases.ts: the model's shared state imports no model module (each owns its slice)",
      expect.stringMatching(
        /^import cycle in the model \(type imports count\): src\/mock\/model\/(cases|documents)\.ts -> src\/mock\/model\/(cases|documents)\.ts -> \(again\)$/,
      ),
    ]);
  });

  it("names a lower floor of the mock importing a higher one (type imports too), and a mock file in no floor", () => {
    const dir = project({
      "src/mock/index.ts": 'export { s } from "./server/http-server.js";\n',
      "src/mock/runtime/clock.ts":
        'import type { M } from "../service/service.js";\nexport type C = M;\n',
      "src/mock/model/cases.ts": 'import { h } from "../http/bind.js";\nexport const c = h;\n',
      "src/mock/http/bind.ts":
        'import type { C } from "../runtime/clock.js";\nexport const h = 1 as unknown as C;\n',
      "src/mock/service/service.ts": "export type M = 1;\n",
      "src/mock/server/http-server.ts":
        'import type { M } from "../service/service.js";\nimport { c } from "../model/cases.js";\nexport const s = c as unknown as M;\n',
      "src/mock/stray.ts": 'import { c } from "./model/cases.js";\nexport const x = c;\n',
    });
    expect(checkLayers(dir)).toEqual([
      "src/mock/stray.ts is in no floor of the mock: put it in one of src/mock/runtime/, src/mock/model/, src/mock/http/, src/mock/controls/, src/mock/service/, src/mock/server/",
      'src/mock/model/cases.ts:1 imports src/mock/http/bind.ts: the mock\'s "model" floor may not import "http" (above it)',
      'src/mock/runtime/clock.ts:1 imports src/mock/service/service.ts: the mock\'s "runtime" floor may not import "service" (above it)',
    ]);
  });
});

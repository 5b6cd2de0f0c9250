import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkFunctionLength,
  longFunctionsIn,
  MAX_LINES,
} from "../../scripts/check-function-length.ts";
import { tempProjects } from "../helpers/temp-project.js";

const root = resolve(import.meta.dirname, "../..");
const project = tempProjects("medrecords-length-");

/** A body of `lines` lines in all, braces included. */
const body = (lines: number) =>
  `{\n${Array.from({ length: lines - 2 }, (_, i) => `  void ${i};\n`).join("")}}`;

describe("the function-length check", () => {
  it("passes on the sources", () => {
    expect(checkFunctionLength(root)).toEqual([]);
  });

  it("takes a function of exactly 100 lines and names one of 101, with its line", () => {
    expect(MAX_LINES).toBe(100);
    const text = `export function fits() ${body(100)}\n\nexport function over() ${body(101)}\n`;
    expect(longFunctionsIn("poller/x.ts", text)).toEqual([
      { file: "poller/x.ts", name: "over", line: 102, lines: 101 },
    ]);
  });

  it("names arrows by their variable, methods by their class, and counts nested functions", () => {
    const text = [
      `export const factory = () => {\n  const inner = () => ${body(60)};\n  return () => ${body(60)};\n};`,
      `export class Walk {\n  #step() ${body(101)}\n  constructor() ${body(101)}\n}`,
      `export const table = { run: function () ${body(101)} };`,
    ].join("\n");
    expect(longFunctionsIn("a.ts", text).map((f) => f.name)).toEqual([
      "factory",
      "Walk.#step",
      "Walk.constructor",
      "run",
    ]);
  });

  it("names the function in the report, skips generated files and lets an allowed one be", () => {
    const dir = project({
      "src/stores/long.ts": `export function longStore() ${body(150)}\n`,
      "src/stores/allowed.ts": `export function allowedStore() ${body(150)}\n`,
      "src/types/wire.ts": `export function generated() ${body(150)}\n`,
    });
    expect(checkFunctionLength(dir, ["stores/allowed.ts:allowedStore"])).toEqual([
      "src/stores/long.ts:1 longStore is 150 lines (at most 100): a class with short methods, or named steps",
    ]);
  });

  it("names an allowed function that is no longer long, or gone", () => {
    const dir = project({ "src/stores/short.ts": `export function shortStore() ${body(10)}\n` });
    expect(checkFunctionLength(dir, ["stores/short.ts:shortStore", "mock/gone.ts:gone"])).toEqual([
      "src/stores/short.ts:shortStore is allowed to be long but is not over 100 lines (or is gone): remove it from ALLOWED",
      "src/mock/gone.ts:gone is allowed to be long but is not over 100 lines (or is gone): remove it from ALLOWED",
    ]);
  });
});

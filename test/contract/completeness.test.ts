/**
 * A missing piece is a compile error: the fixture adds an operation to the
 * contract and leaves out its handler, its client method, and more; the
 * TypeScript compiler must refuse each of those lines, naming what is
 * missing, and accept the complete addition.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const FIXTURE = join(root, "test/contract/fixtures/forgotten-pieces.ts");

function diagnosticsByLine(file: string): Map<number, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error("no tsconfig.json");
  const program = ts.createProgram([file], config.options);
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`not compiled: ${file}`);
  const lines = new Map<number, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program, source)) {
    const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    lines.set(line, [...(lines.get(line) ?? []), text]);
  }
  return lines;
}

describe("a piece left out of an endpoint", () => {
  it("fails to compile on each marked line, naming what is missing, and nowhere else", () => {
    const expected = new Map<number, string>();
    readFileSync(FIXTURE, "utf8")
      .split("\n")
      .forEach((text, i) => {
        const marked = /\/\/ expect-error: (\S+)/.exec(text);
        if (marked !== null) expected.set(i + 1, marked[1] as string);
      });
    expect(expected.size).toBeGreaterThanOrEqual(6);

    const found = diagnosticsByLine(FIXTURE);
    for (const [line, name] of expected) {
      const messages = found.get(line) ?? [];
      expect(messages.join("\n"), `line ${line} must fail naming ${name}`).toContain(name);
    }
    // The complete addition at the end, and everything unmarked, compiles.
    const unexpected = [...found].filter(([line]) => !expected.has(line));
    expect(unexpected).toEqual([]);
  }, 120_000);
});

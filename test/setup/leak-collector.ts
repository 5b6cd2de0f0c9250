/**
 * Whole-suite leak collector (a vitest setup file, so it runs before every
 * test file of every project). It shows, for the whole suite, that the API
 * key, webhook secrets and PHI values (test/setup/sentinels.ts) never appear
 * in a log line or an error message:
 *
 * - Log lines: every call of console.log/info/debug/warn/error/trace/dir/
 *   dirxml/table/assert, formatted as the console formats it, and every
 *   chunk written with process.stdout.write / process.stderr.write (scanned
 *   line by line, so a secret split across writes is still seen).
 * - Errors: every `MedRecordsError` (so every SDK error class, including
 *   `WebhookVerificationError`) and every `MockApiError` of the reference
 *   server (whose message becomes the response body), as `message`,
 *   `String(error)`, `util.inspect(error, { depth: 5 })` and
 *   `JSON.stringify(error)`, read after the test (the SDK rewrites some
 *   messages right after construction) or, in a test that makes more than
 *   1024 of them, as later ones come.
 *
 * How errors are seen: ES module bindings cannot be replaced from outside,
 * but the class objects are shared (this file imports the same module
 * instances as the tests). A derived class's `super(...)` calls whatever its
 * constructor's [[Prototype]] is at that moment, so the [[Prototype]] of
 * `MedRecordsError` (which is `Error`) is swapped for a Proxy of `Error` whose
 * `construct` trap calls `Reflect.construct(Error, args, newTarget)` and
 * records the instance. Every subclass, present or future, goes through it.
 * Nothing observable changes: instances keep their prototype chain
 * (`instanceof` as before), statics are forwarded by the Proxy, and V8 still
 * cuts the stack at `newTarget` (Error's SKIP_UNTIL_SEEN mode), so `stack` is
 * the same. (`Error.captureStackTrace` is not called by `new Error`, so
 * hooking it would see nothing.)
 *
 * Cost: per error, the Proxy trap, one regex pass over its message, String
 * and JSON, and `inspect` only for the first error of each name, message and
 * JSON in the file (fuzz tests make 100 000 alike); per log line, one regex
 * pass. About 1% of the suite's time (measured 0.4 to 0.8 s of 53 s).
 *
 * Not covered: output of child processes (the CLI tests read it into
 * strings, and the CLI's mock-server prints a generated key on purpose),
 * console calls a test replaces with its own spy (`vi.spyOn(console, "error")
 * .mockImplementation(...)`: never printed), and errors of other module
 * instances (a bundle under dist/ or node_modules/.cache).
 *
 * Findings are reported (redacted) by an afterAll hook that fails the file.
 */
import { format, inspect } from "node:util";
import { afterAll, afterEach, expect } from "vitest";
import { MedRecordsError } from "../../src/core/errors.js";
import { MockApiError } from "../../src/mock/runtime/http-error.js";
import {
  installLeakCollectorState,
  type LeakCollectorState,
  type LeakFinding,
} from "./collector-state.js";
import { findSecrets, hasSecret } from "./sentinels.js";

const CONSOLE_METHODS = [
  "log",
  "info",
  "debug",
  "warn",
  "error",
  "trace",
  "dir",
  "dirxml",
  "table",
  "assert",
] as const;

/** Errors held until the end of a test at most; older ones are checked as more come. */
const PENDING_LIMIT = 1024;
const PENDING_KEPT = 32;

const state = installLeakCollectorState(createState);
// A fresh file: what an earlier file left (in a reused worker) is its own business.
state.findings = [];
state.pendingErrors = [];
state.inspected = new Set();
state.counts = { errors: 0, lines: 0 };

recordConstruction(MedRecordsError);
recordConstruction(MockApiError);
state.patchConsole(globalThis.console);
patchStreams();

afterEach((context) => {
  state.check(nameOf(context.task));
});

afterAll(() => {
  state.check("(hooks and module code)");
  const findings = state.findings;
  state.findings = [];
  if (findings.length > 0) throw new Error(report(findings));
});

function createState(): LeakCollectorState {
  const s: LeakCollectorState = {
    pendingErrors: [],
    inspected: new Set(),
    findings: [],
    counts: { errors: 0, lines: 0 },
    patchedClasses: new WeakSet(),
    patchedConsoles: new WeakSet(),
    streamsPatched: false,
    inConsole: 0,
    partial: { stdout: "", stderr: "" },
    realWrite: {
      stdout: process.stdout.write as (...args: unknown[]) => boolean,
      stderr: process.stderr.write as (...args: unknown[]) => boolean,
    },
    patchConsole,
    check(where) {
      const errors = s.pendingErrors;
      s.pendingErrors = [];
      for (const error of errors) checkError(s, error, where);
      for (const stream of ["stdout", "stderr"] as const) {
        const rest = s.partial[stream];
        s.partial[stream] = "";
        if (rest !== "") scanLine(s, `process.${stream}.write`, rest, where);
      }
    },
  };
  return s;
}

function recordConstruction(cls: abstract new (...args: never[]) => Error): void {
  if (state.patchedClasses.has(cls)) return;
  state.patchedClasses.add(cls);
  const parent = Object.getPrototypeOf(cls) as new (...args: unknown[]) => Error;
  const recording = new Proxy(parent, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget) as Error;
      const pending = state.pendingErrors;
      // Bounded: a long test checks its older errors as it goes (their
      // messages are final by then), keeping the newest for after the test.
      if (pending.length >= PENDING_LIMIT) {
        state.pendingErrors = pending.splice(PENDING_LIMIT - PENDING_KEPT);
        for (const error of pending) checkError(state, error, currentTest());
        state.pendingErrors.push(instance);
      } else {
        pending.push(instance);
      }
      return instance;
    },
  });
  Object.setPrototypeOf(cls, recording);
}

function patchConsole(target: Console): void {
  if (state.patchedConsoles.has(target)) return;
  state.patchedConsoles.add(target);
  for (const name of CONSOLE_METHODS) {
    const original = target[name] as (...args: unknown[]) => void;
    if (typeof original !== "function") continue;
    const wrapped = function (this: unknown, ...args: unknown[]): void {
      const text = consoleText(name, args);
      if (text !== undefined) scanLine(state, `console.${name}`, text, currentTest());
      state.inConsole++;
      try {
        original.apply(this, args);
      } finally {
        state.inConsole--;
      }
    };
    Object.defineProperty(target, name, {
      value: wrapped,
      writable: true,
      configurable: true,
      enumerable: Object.getOwnPropertyDescriptor(target, name)?.enumerable ?? true,
    });
  }
}

/** What the console prints for a call, without colors; undefined when it prints nothing. */
function consoleText(name: (typeof CONSOLE_METHODS)[number], args: unknown[]): string | undefined {
  try {
    if (name === "assert") return args[0] ? undefined : format(...args.slice(1));
    if (name === "dir") return inspect(args[0], { ...(args[1] as object), colors: false });
    return format(...args);
  } catch {
    return undefined;
  }
}

function patchStreams(): void {
  if (state.streamsPatched) return;
  state.streamsPatched = true;
  for (const stream of ["stdout", "stderr"] as const) {
    const target = process[stream];
    state.realWrite[stream] = target.write as (...args: unknown[]) => boolean;
    target.write = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      if (state.inConsole === 0) collectChunk(stream, chunk);
      return state.realWrite[stream].call(this, chunk, ...rest);
    } as typeof target.write;
  }
}

function collectChunk(stream: "stdout" | "stderr", chunk: unknown): void {
  let text: string;
  if (typeof chunk === "string") text = chunk;
  else if (chunk instanceof Uint8Array) text = Buffer.from(chunk).toString("utf8");
  else return;
  const lines = (state.partial[stream] + text).split("\n");
  state.partial[stream] = lines.pop() ?? "";
  const where = currentTest();
  for (const line of lines) scanLine(state, `process.${stream}.write`, line, where);
}

function scanLine(s: LeakCollectorState, source: string, text: string, where: string): void {
  s.counts.lines++;
  for (const { kind, excerpt } of findSecrets(text))
    s.findings.push({ where, source, kind, excerpt });
}

function checkError(s: LeakCollectorState, error: Error, where: string): void {
  s.counts.errors++;
  const name = safely(() => error.constructor.name) ?? "Error";
  const message = safely(() => String(error.message)) ?? "";
  const json = safely(() => JSON.stringify(error)) ?? "";
  const renderings: [string, () => string][] = [
    ["message", () => message],
    ["String(error)", () => String(error)],
    ["JSON.stringify(error)", () => json],
  ];
  // inspect() adds the stack, the cause and non-enumerable properties; the
  // costly part (source-mapped stacks), so once per distinct error.
  const key = `${name}\0${message}\0${json}`;
  if (!s.inspected.has(key)) {
    if (s.inspected.size >= 10_000) s.inspected.clear();
    s.inspected.add(key);
    renderings.push(["inspect(error)", () => inspect(error, { depth: 5 })]);
  }
  const texts = renderings.map(([how, render]) => [how, safely(render) ?? ""] as const);
  // One scan of all renderings; only a hit is looked at rendering by rendering.
  if (!hasSecret(texts.map(([, text]) => text).join("\n"))) return;
  const seen = new Set<string>();
  for (const [how, text] of texts) {
    for (const { kind, excerpt } of findSecrets(text)) {
      if (seen.has(kind)) continue;
      seen.add(kind);
      s.findings.push({ where, source: `${name} ${how}`, kind, excerpt });
    }
  }
}

function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

function currentTest(): string {
  return expect.getState().currentTestName ?? "(hooks and module code)";
}

function nameOf(task: { name: string; suite?: { name: string } | undefined }): string {
  const names = [task.name];
  for (let suite = task.suite; suite?.name; suite = (suite as typeof task).suite) {
    names.unshift(suite.name);
  }
  return names.join(" > ");
}

function report(findings: LeakFinding[]): string {
  const lines = findings
    .slice(0, 20)
    .map((f) => `  - ${f.kind} in ${f.source}, during "${f.where}": ${f.excerpt}`);
  if (findings.length > 20) lines.push(`  ... and ${findings.length - 20} more`);
  return `Leak collector: ${findings.length} secret(s) reached a log line or an error message (shown redacted):\n${lines.join("\n")}`;
}

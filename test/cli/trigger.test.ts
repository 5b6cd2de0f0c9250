/**
 * `medrecords trigger` in-process against a mock over HTTP: the unprefixed
 * event type (documents_available) and the closest type suggested for a
 * near miss.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closestName, editDistance } from "../../src/cli/closest.js";
import { triggerCommand } from "../../src/cli/trigger.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/schemas/events.js";
import { eventLogForTesting } from "../helpers/mock-internals.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ clock: "manual" });
});
afterAll(() => mock.close());

async function trigger(argv: string[]) {
  const out: string[] = [];
  const code = await triggerCommand(argv, {
    stdout: (text) => void out.push(text),
    stderr: () => {},
    env: { MEDRECORDS_BASE_URL: mock.url },
    signal: new AbortController().signal,
  });
  return { code, out: out.join("") };
}

const refusal = (argv: string[]) =>
  trigger(argv).then(
    () => {
      throw new Error("expected a usage error");
    },
    (error: unknown) => error as Error,
  );

describe("medrecords trigger", () => {
  it("understands an event type without its retrieval_request. prefix", async () => {
    const { code, out } = await trigger(["documents_available"]);
    expect(code).toBe(0);
    expect(out).toContain("the mock emitted retrieval_request.documents_available");
    expect(eventLogForTesting(mock).at(-1)?.type).toBe("retrieval_request.documents_available");
  });

  it.each([
    ["retrieval_request.documents_availble", "retrieval_request.documents_available"],
    ["retrieval_request.status_change", "retrieval_request.status_changed"],
    ["action_requird", "retrieval_request.action_required"],
    ["Status_Changed", "retrieval_request.status_changed"],
  ])("suggests the closest type for %s", async (typed, closest) => {
    const error = await refusal([typed]);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`did you mean ${closest}?`);
  });

  it("suggests nothing for a word far from every type, and still lists them", async () => {
    const error = await refusal(["exploded"]);
    expect(error.message).not.toContain("did you mean");
    for (const type of SUBSCRIBABLE_EVENT_TYPES) expect(error.message).toContain(type);
  });
});

describe("closestName", () => {
  it("measures edits", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(closestName("zzz", ["a.bbbbbbbb"])).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { MedRecords, ResponseValidationError } from "../../src/index.js";
import { API_KEY, BASE_URL, json, sampleCase, scriptedFetch } from "../helpers/scripted-fetch.js";

const client = (fetch: typeof globalThis.fetch) =>
  new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });

describe("reading a success's body (parsed inside the attempt)", () => {
  it("a 2xx whose body is not JSON fails with a ResponseValidationError naming the status", async () => {
    const { fetch } = scriptedFetch([
      new Response("<html>maintenance</html>", {
        status: 200,
        headers: { "content-type": "text/html" },
      }),
    ]);
    const call = client(fetch).cases.retrieve("case_1");
    await expect(call).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(
      client(scriptedFetch([new Response("{", { status: 200 })]).fetch).cases.retrieve("case_1"),
    ).rejects.toThrow("Response 200 is not JSON.");
  });

  it("a UTF-8 body keeps its non-ASCII text, and a leading BOM is dropped", async () => {
    const body = JSON.stringify({ ...sampleCase, client_name: "Zoë Ångström" });
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(body)]);
    const { fetch } = scriptedFetch([
      new Response(bytes, { status: 200, headers: { "content-type": "application/json" } }),
    ]);
    await expect(client(fetch).cases.retrieve("case_1")).resolves.toMatchObject({
      client_name: "Zoë Ångström",
    });
  });

  it("each call gets its own body: the second of two concurrent calls is not handed the first's", async () => {
    const { fetch } = scriptedFetch([
      json(200, { ...sampleCase, id: "case_a" }),
      json(200, { ...sampleCase, id: "case_b" }),
    ]);
    const mr = client(fetch);
    const [a, b] = await Promise.all([mr.cases.retrieve("case_a"), mr.cases.retrieve("case_b")]);
    expect([a.id, b.id].sort()).toEqual(["case_a", "case_b"]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";
import { userAgent } from "../../src/internal/user-agent.js";
import { API_KEY, BASE_URL, json, sampleCase, scriptedFetch } from "../helpers/scripted-fetch.js";

const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

describe("User-Agent", () => {
  it("every API request says medrecords/<package.json version> node/<version>", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase), json(200, sampleCase)]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    await mr.cases.retrieve("case_1");
    await mr.cases.update("case_1", { title: "New" });
    for (const request of seen) {
      expect(request.headers.get("user-agent")).toBe(
        `medrecords/${version} node/${process.versions.node}`,
      );
    }
    expect(seen).toHaveLength(2);
  });

  it("names Bun and Deno by their own versions, though both also define process.versions.node", () => {
    const node = { versions: { node: "22.0.0" } };
    expect(userAgent({ process: node, Bun: { version: "1.2.3" } })).toBe(
      `medrecords/${version} bun/1.2.3`,
    );
    expect(userAgent({ process: node, Deno: { version: { deno: "2.1.0" } } })).toBe(
      `medrecords/${version} deno/2.1.0`,
    );
  });

  it("is not set where the runtime is not one that lets a request set it (browsers)", () => {
    expect(userAgent({})).toBeUndefined();
    expect(userAgent({ process: undefined })).toBeUndefined();
  });

  it("the caller's defaultHeaders may replace it", async () => {
    const { fetch, seen } = scriptedFetch([json(200, sampleCase)]);
    const mr = new MedRecords({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch,
      defaultHeaders: { "user-agent": "firm-app/1.0" },
    });
    await mr.cases.retrieve("case_1");
    expect(seen[0]?.headers.get("user-agent")).toBe("firm-app/1.0");
  });

  it("is not sent to a presigned storage address", async () => {
    const uploadUrl = "https://storage.medrecords.test/put/1";
    const { fetch, seen } = scriptedFetch([
      json(200, {
        upload_id: "8f14e45f-ceea-4e6a-9f4b-0c6a1b2c3d4e",
        upload_url: uploadUrl,
        expires_at: "2026-01-01T01:00:00.000Z",
      }),
      new Response(null, { status: 200 }),
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    await mr.retrievalRequests.uploadFile({
      file: new Uint8Array([1, 2, 3]),
      file_name: "a.pdf",
      file_type: "application/pdf",
    });
    expect(seen.map((s) => [s.url, s.headers.has("user-agent")])).toEqual([
      [`${BASE_URL}/v2/retrieval-requests/sign-upload`, true],
      [uploadUrl, false],
    ]);
  });
});

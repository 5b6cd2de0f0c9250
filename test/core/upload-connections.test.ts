import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MedRecords } from "../../src/index.js";
import { cloningFetch } from "../helpers/cloning-fetch.js";

/** A sign-upload endpoint and a storage origin that counts its connections and the bytes PUT. */
let api: Server;
let storage: Server;
let apiUrl: string;
let connections = 0;
let received = 0;

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );

beforeAll(async () => {
  storage = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    req.on("end", () => res.writeHead(200, { "content-length": "0" }).end());
  });
  storage.on("connection", () => {
    connections += 1;
  });
  const storageUrl = await listen(storage);
  api = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const upload_id = randomUUID();
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          upload_id,
          upload_url: `${storageUrl}/uploads/${upload_id}`,
          expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
        }),
      );
    });
  });
  apiUrl = await listen(api);
});

afterAll(async () => {
  for (const server of [api, storage]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const upload = (mr: MedRecords, bytes: number) =>
  mr.retrievalRequests.uploadFile({
    file: new Uint8Array(bytes),
    file_name: "authorization.pdf",
    file_type: "application/pdf",
  });

describe("upload connections (node:http PUT)", () => {
  it("uploads of one client reuse one connection, and another client gets its own", async () => {
    connections = 0;
    received = 0;
    const first = new MedRecords({ apiKey: "medrecords_sk_live_x", baseUrl: apiUrl });
    for (let i = 0; i < 3; i++) await upload(first, 100_000);
    expect(received).toBe(300_000);
    expect(connections).toBe(1);

    const second = new MedRecords({ apiKey: "medrecords_sk_live_x", baseUrl: apiUrl });
    await upload(second, 100_000);
    await upload(first, 100_000);
    expect(received).toBe(500_000);
    expect(connections).toBe(2);
  });
});

describe("uploads through the caller's fetch", () => {
  it("an upload ends when storage answers, even if the caller's fetch holds an unread clone of the answer", async () => {
    const { fetch, copies } = cloningFetch();
    const mr = new MedRecords({
      apiKey: "medrecords_sk_live_x",
      baseUrl: apiUrl,
      maxRetries: 0,
      fetch,
    });
    received = 0;
    await expect(upload(mr, 1000)).resolves.toMatch(/^[0-9a-f-]{36}$/);
    expect(received).toBe(1000);
    // The sign call and the PUT both went through the caller's fetch.
    expect(copies).toHaveLength(2);
  });
});

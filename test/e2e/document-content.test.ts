import { beforeEach, describe, expect, it } from "vitest";
import { ConflictError, ConnectionError, DownloadError, MedRecords } from "../../src/index.js";
import { useReferenceServers } from "./transport.js";

const {
  services: { mock },
} = await useReferenceServers({
  mock: {
    now: "2026-06-15T12:00:00.000Z",
    baseUrl: "https://content-api.medrecords.test",
    storageUrl: "https://content-storage.medrecords.test",
  },
});

interface Sent {
  origin: string;
  path: string;
  authorization: string | null;
}
let sent: Sent[] = [];
/** Runs before each request to the storage origin, e.g. to let the address expire. */
let beforeStorage: () => void = () => {};

const apiKey = mock.apiKeys.create();
const mr = new MedRecords({
  apiKey,
  baseUrl: mock.baseUrl,
  maxRetries: 0,
  fetch: async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    sent.push({
      origin: url.origin,
      path: url.pathname,
      authorization: request.headers.get("authorization"),
    });
    if (url.origin === mock.storageUrl) beforeStorage();
    return globalThis.fetch(request);
  },
});

beforeEach(() => {
  mock.reset();
  mock.clock.set("2026-06-15T12:00:00.000Z");
  sent = [];
  beforeStorage = () => {};
});

async function uploaded(text: string) {
  const kase = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
  return mr.cases.uploadDocument(kase.id, {
    file: new TextEncoder().encode(text),
    file_name: "chart.txt",
    file_type: "text/plain",
  });
}

const downloads = () => sent.filter((s) => s.path.endsWith("/download"));
const storageGets = () =>
  sent.filter((s) => s.origin === mock.storageUrl && s.path.startsWith("/downloads/"));

describe("documents.content", () => {
  it("streams the bytes from a fresh address, sending the key to the API only", async () => {
    const doc = await uploaded("%PDF-1.7 chart");
    sent = [];
    const response = await mr.documents.content(doc.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(response.body).toBeInstanceOf(ReadableStream);
    expect(await response.text()).toBe("%PDF-1.7 chart");
    expect(downloads()).toEqual([
      {
        origin: mock.baseUrl,
        path: `/v2/documents/${doc.id}/download`,
        authorization: `Bearer ${apiKey}`,
      },
    ]);
    expect(storageGets()).toHaveLength(1);
    expect(storageGets()[0]?.authorization).toBeNull();
  });

  it("signs once more when the address has expired before use (3601 s), and then reads the file", async () => {
    const doc = await uploaded("late");
    sent = [];
    let first = true;
    beforeStorage = () => {
      if (first) mock.clock.advance("3601s");
      first = false;
    };
    const response = await mr.documents.content(doc.id);
    expect(await response.text()).toBe("late");
    expect(downloads()).toHaveLength(2);
    expect(storageGets()).toHaveLength(2);
  });

  it("an address still valid at 3600 s is used without a second signature", async () => {
    const doc = await uploaded("on time");
    sent = [];
    let first = true;
    beforeStorage = () => {
      if (first) mock.clock.advance("3600s");
      first = false;
    };
    expect(await (await mr.documents.content(doc.id)).text()).toBe("on time");
    expect(downloads()).toHaveLength(1);
  });

  it("re-signs only once: a second expired address is a DownloadError with the storage's code", async () => {
    const doc = await uploaded("never");
    sent = [];
    beforeStorage = () => mock.clock.advance("3601s");
    const error = await mr.documents.content(doc.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ status: 403, code: "download_url_expired" });
    expect(String((error as Error).message)).not.toContain(apiKey);
    expect(downloads()).toHaveLength(2);
  });

  it("a storage origin that cannot be reached is a ConnectionError, not a raw TypeError", async () => {
    const doc = await uploaded("x");
    beforeStorage = () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
      });
    };
    const error = await mr.documents.content(doc.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });
});

describe("retrievalRequests.documentContent", () => {
  async function newRequest() {
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: new File(["%PDF-1.7 auth"], "authorization.pdf", { type: "application/pdf" }),
    });
    return mr.retrievalRequests.create({
      case: { title: "Doe v. Acme", client_name: "Jane Doe", date_of_injury: "2026-01-02" },
      facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
      requestor: { name: "Ann Counsel", email: "ann@firm.example" },
      auth_form,
      record_types: ["medical_records"],
    });
  }

  it("streams a released record byte for byte, without the key on the storage origin", async () => {
    const { id } = await newRequest();
    const [recordId] = mock.retrievalRequests.releaseRecords(id, [
      { file_name: "xray.png", file_type: "image/png", content: new Uint8Array([137, 80, 78, 71]) },
    ]);
    sent = [];
    const response = await mr.retrievalRequests.documentContent(id, recordId!);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect(storageGets().map((s) => s.authorization)).toEqual([null]);
  });

  it("an invoice that is not ready is a ConflictError before any storage request", async () => {
    const { id } = await newRequest();
    const invoiceId = mock.retrievalRequests.addInvoice(id, {
      file_name: "invoice-1001.pdf",
      amount: 48.5,
      ready: false,
    });
    sent = [];
    await expect(mr.retrievalRequests.documentContent(id, invoiceId)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(storageGets()).toEqual([]);
  });
});

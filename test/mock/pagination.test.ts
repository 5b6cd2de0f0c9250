import { describe, expect, it } from "vitest";
import type { Case } from "../../src/schemas/cases.js";
import type { ListEnvelope } from "../../src/schemas/common.js";
import type { Document } from "../../src/schemas/documents.js";
import {
  type Api,
  createCase,
  expectError,
  type JsonResponse,
  setup,
  uploadDocument,
} from "./helpers.js";

type CasePage = ListEnvelope<Case>;

async function createCases(api: Api, count: number): Promise<Case[]> {
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) cases.push(await createCase(api, { title: `Case ${i}` }));
  return cases;
}

/** Follows `next` from `first`, returning every page. */
async function walk<T>(api: Api, first: string): Promise<ListEnvelope<T>[]> {
  const pages: ListEnvelope<T>[] = [];
  let url: string | null = first;
  while (url !== null) {
    const response: JsonResponse<ListEnvelope<T>> = await api.get<ListEnvelope<T>>(url);
    expect(response.status).toBe(200);
    pages.push(response.body);
    url = response.body.next;
  }
  return pages;
}

describe("GET /v2/cases pagination", () => {
  it("lists newest first across more than three pages, with next null on the last and previous null on the first", async () => {
    const { api } = setup();
    const cases = await createCases(api, 9);
    const pages = await walk<Case>(api, "/v2/cases?limit=2");
    expect(pages.map((p) => p.results.length)).toEqual([2, 2, 2, 2, 1]);
    expect(pages.flatMap((p) => p.results.map((c) => c.id))).toEqual(
      cases.map((c) => c.id).reverse(),
    );
    expect(pages[0]?.previous).toBeNull();
    expect(pages.at(-1)?.next).toBeNull();
    for (const page of pages.slice(1)) expect(page.previous).not.toBeNull();
  });

  it("walks back with previous to the same pages", async () => {
    const { api } = setup();
    await createCases(api, 9);
    const forward = await walk<Case>(api, "/v2/cases?limit=2");
    const backward: CasePage[] = [forward.at(-1) as CasePage];
    let url = backward[0]?.previous ?? null;
    while (url !== null) {
      const page = (await api.get<CasePage>(url)).body;
      backward.unshift(page);
      url = page.previous;
    }
    expect(backward.map((p) => p.results.map((c) => c.id))).toEqual(
      forward.map((p) => p.results.map((c) => c.id)),
    );
    expect(backward[0]?.previous).toBeNull();
  });

  it("links are absolute URLs on the API origin that keep the limit and carry an opaque cursor", async () => {
    const { mock, api } = setup();
    await createCases(api, 3);
    const { body } = await api.get<CasePage>("/v2/cases?limit=1");
    const next = new URL(body.next as string);
    expect(next.origin).toBe(mock.baseUrl);
    expect(next.pathname).toBe("/v2/cases");
    expect(next.searchParams.get("limit")).toBe("1");
    expect(next.searchParams.get("cursor")).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("uses 25 as the default page size", async () => {
    const { api } = setup();
    await createCases(api, 26);
    const first = (await api.get<CasePage>("/v2/cases")).body;
    expect(first.results).toHaveLength(25);
    const second = (await api.get<CasePage>(first.next as string)).body;
    expect(second.results).toHaveLength(1);
    expect(second.next).toBeNull();
  });

  it("returns an empty first page with both links null when there is nothing", async () => {
    const { api } = setup();
    const response = await api.get<CasePage>("/v2/cases");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ results: [], next: null, previous: null });
  });

  it("neither skips nor repeats when cases are created during a walk", async () => {
    const { api } = setup();
    const cases = await createCases(api, 6);
    const first = (await api.get<CasePage>("/v2/cases?limit=2")).body;
    await createCases(api, 3);
    const rest = await walk<Case>(api, first.next as string);
    const seen = [...first.results, ...rest.flatMap((p) => p.results)].map((c) => c.id);
    expect(seen).toEqual(cases.map((c) => c.id).reverse());
  });

  it.each([
    ["1", 200],
    ["100", 200],
    ["0", 400],
    ["101", 400],
    ["-1", 400],
    ["2.5", 400],
    ["abc", 400],
    ["", 400],
  ])("limit=%s answers %i", async (limit, status) => {
    const { api } = setup();
    await createCases(api, 2);
    const response = await api.get(`/v2/cases?limit=${limit}`);
    if (status === 200) {
      expect(response.status).toBe(200);
    } else {
      expect(expectError(response, 400, "validation_error")).toMatch(/^limit: /);
    }
  });

  it("limit=1 gives one item and limit=100 gives up to a hundred", async () => {
    const { api } = setup();
    await createCases(api, 3);
    expect((await api.get<CasePage>("/v2/cases?limit=1")).body.results).toHaveLength(1);
    expect((await api.get<CasePage>("/v2/cases?limit=100")).body.results).toHaveLength(3);
  });

  it.each(["garbage!", "bm90LWEtY3Vyc29y", "eC4x", ""])(
    "refuses the cursor %j with 400 validation_error",
    async (cursor) => {
      const { api } = setup();
      const response = await api.get(`/v2/cases?cursor=${encodeURIComponent(cursor)}`);
      expect(expectError(response, 400, "validation_error")).toMatch(/^cursor: /);
    },
  );

  it("refuses unknown and repeated query parameters with 400 validation_error", async () => {
    const { api } = setup();
    const unknown = await api.get("/v2/cases?page=2");
    expect(expectError(unknown, 400, "validation_error")).toBe("page: Unknown property");
    const repeated = await api.get("/v2/cases?limit=1&limit=2");
    expect(expectError(repeated, 400, "validation_error")).toBe("limit: Given more than once");
  });
});

describe("GET /v2/documents", () => {
  async function seed() {
    const context = setup();
    const { mock, api } = context;
    const [a, b] = await createCases(api, 2);
    const docs: Document[] = [];
    for (let i = 0; i < 10; i++) {
      const owner = i % 2 === 0 ? (a as Case) : (b as Case);
      docs.push(await uploadDocument(mock, api, owner.id, { file_name: `f${i}.pdf` }));
    }
    // Archive the documents of case a with an index divisible by 4: f0, f4, f8.
    for (const doc of docs.filter((_, i) => i % 4 === 0)) {
      await api.patch(`/v2/documents/${doc.id}`, { archived: true });
    }
    return { ...context, a: a as Case, b: b as Case, docs };
  }

  it("lists every document newest first with 200", async () => {
    const { api, docs } = await seed();
    const response = await api.get<ListEnvelope<Document>>("/v2/documents?limit=100");
    expect(response.status).toBe(200);
    expect(response.body.results.map((d) => d.id)).toEqual(docs.map((d) => d.id).reverse());
  });

  it("filters by case_id and archived, and keeps both filters and the limit in the links", async () => {
    const { api, a, docs } = await seed();
    const pages = await walk<Document>(api, `/v2/documents?case_id=${a.id}&archived=false&limit=1`);
    const names = pages.flatMap((p) => p.results.map((d) => d.file_name));
    expect(names).toEqual(["f6.pdf", "f2.pdf"]);
    const next = new URL(
      (
        await api.get<ListEnvelope<Document>>(
          `/v2/documents?case_id=${a.id}&archived=false&limit=1`,
        )
      ).body.next as string,
    );
    expect(next.searchParams.get("case_id")).toBe(a.id);
    expect(next.searchParams.get("archived")).toBe("false");
    expect(next.searchParams.get("limit")).toBe("1");
    const archived = await walk<Document>(api, "/v2/documents?archived=true&limit=2");
    expect(archived.flatMap((p) => p.results.map((d) => d.file_name))).toEqual([
      "f8.pdf",
      "f4.pdf",
      "f0.pdf",
    ]);
    expect(docs).toHaveLength(10);
  });

  it("walks more than three pages forward and back with a filter", async () => {
    const { api, b } = await seed();
    const pages = await walk<Document>(api, `/v2/documents?case_id=${b.id}&limit=1`);
    expect(pages).toHaveLength(5);
    expect(pages.flatMap((p) => p.results.map((d) => d.file_name))).toEqual([
      "f9.pdf",
      "f7.pdf",
      "f5.pdf",
      "f3.pdf",
      "f1.pdf",
    ]);
    const back = await api.get<ListEnvelope<Document>>(pages[4]?.previous as string);
    expect(back.body.results.map((d) => d.file_name)).toEqual(["f3.pdf"]);
  });

  it("a case_id that matches nothing gives an empty page, not a 404", async () => {
    const { api } = await seed();
    const response = await api.get<ListEnvelope<Document>>("/v2/documents?case_id=case_none");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ results: [], next: null, previous: null });
  });

  it.each(["yes", "1", "TRUE", ""])(
    "refuses archived=%j with 400 validation_error",
    async (value) => {
      const { api } = setup();
      const response = await api.get(`/v2/documents?archived=${value}`);
      expect(expectError(response, 400, "validation_error")).toMatch(/^archived: /);
    },
  );

  it("refuses an unknown query parameter and a bad cursor", async () => {
    const { api } = setup();
    expect(expectError(await api.get("/v2/documents?status=x"), 400, "validation_error")).toBe(
      "status: Unknown property",
    );
    expectError(await api.get("/v2/documents?cursor=%%%"), 400, "validation_error");
  });
});

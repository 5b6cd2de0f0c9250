import { describe, expect, it } from "vitest";
import { Case } from "../../src/schemas/cases.js";
import type { ListEnvelope } from "../../src/schemas/common.js";
import { createCase, expectError, START, setup } from "./helpers.js";

describe("POST /v2/cases", () => {
  it("creates a case: 201, generated id and case number, defaults, unset fields null, mock-clock timestamps", async () => {
    const { api } = setup();
    const response = await api.post<Case>("/v2/cases", {
      title: "Doe v. Acme",
      client_name: "Jane Doe",
    });
    expect(response.status).toBe(201);
    expect(Case.parse(response.body)).toEqual(response.body);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^case_[0-9A-Za-z]+$/),
      case_number: "MR-000001",
      title: "Doe v. Acme",
      client_name: "Jane Doe",
      description: null,
      client_date_of_birth: null,
      client_address: null,
      client_phone: null,
      client_email: null,
      date_of_injury: null,
      deposition_date: null,
      case_category: "personal_injury",
      status: "active",
      external_id: null,
      created_at: START,
      updated_at: START,
    });
  });

  it("returns every supplied field as given", async () => {
    const { api } = setup();
    const fields = {
      title: "Roe v. Hospital",
      client_name: "Richard Roe",
      description: "Surgical error",
      client_date_of_birth: "1980-02-29",
      client_address: "1 Main St",
      client_phone: "+1 555 0100",
      client_email: "roe@example.com",
      date_of_injury: "2025-12-01",
      deposition_date: "2026-09-01",
      case_category: "medical_malpractice",
      status: "pending",
      external_id: "matter-42",
    };
    const created = await createCase(api, fields);
    expect(created).toMatchObject(fields);
  });

  it("numbers cases in creation order and gives each a distinct id", async () => {
    const { api } = setup();
    const cases = [await createCase(api), await createCase(api), await createCase(api)];
    expect(cases.map((c) => c.case_number)).toEqual(["MR-000001", "MR-000002", "MR-000003"]);
    expect(new Set(cases.map((c) => c.id)).size).toBe(3);
  });

  it("refuses archived as a status on create", async () => {
    const { api } = setup();
    const response = await api.post("/v2/cases", {
      title: "t",
      client_name: "c",
      status: "archived",
    });
    expect(expectError(response, 400, "validation_error")).toMatch(/^status: /);
  });

  it("judges date_of_injury against the mock clock, not the machine's", async () => {
    const { mock, api } = setup({ now: "2020-01-01T12:00:00.000Z" });
    const tomorrow = { title: "t", client_name: "c", date_of_injury: "2020-01-02" };
    const refused = await api.post("/v2/cases", tomorrow);
    expect(expectError(refused, 400, "validation_error")).toBe(
      "date_of_injury: Must be in the past",
    );
    mock.clock.advance("1d");
    expect((await api.post("/v2/cases", tomorrow)).status).toBe(201);
  });

  it("answers malformed JSON with 400 validation_error", async () => {
    const { api } = setup();
    const message = expectError(
      await api.call("POST", "/v2/cases", { raw: '{"title": ' }),
      400,
      "validation_error",
    );
    expect(message).toBe("body: Malformed JSON");
  });

  it("answers an empty body with 400 validation_error", async () => {
    const { api } = setup();
    expectError(await api.call("POST", "/v2/cases", { raw: "" }), 400, "validation_error");
  });

  it("answers a body that is not an object with 400 validation_error", async () => {
    const { api } = setup();
    const message = expectError(
      await api.call("POST", "/v2/cases", { raw: "[]" }),
      400,
      "validation_error",
    );
    expect(message).toMatch(/^body: /);
  });

  it("refuses unknown properties, naming each", async () => {
    const { api } = setup();
    const response = await api.post("/v2/cases", {
      title: "t",
      client_name: "c",
      nickname: "x",
      age: 3,
    });
    const message = expectError(response, 400, "validation_error");
    expect(message).toBe("nickname: Unknown property; age: Unknown property");
  });

  it("lists every bad field as 'field: reason' joined by '; ' and never echoes a submitted value", async () => {
    const { api } = setup();
    const response = await api.post("/v2/cases", {
      title: "",
      client_name: "Jane Doe",
      client_email: "jane-SECRET-at-example",
      client_phone: "5".repeat(51),
      case_category: "SECRET-CATEGORY",
    });
    const message = expectError(response, 400, "validation_error");
    const fields = message.split("; ").map((part) => part.split(":")[0]);
    expect(fields).toEqual(["title", "client_phone", "client_email", "case_category"]);
    expect(message).not.toContain("SECRET");
    expect(message).not.toContain("55555");
  });

  it("requires title and client_name", async () => {
    const { api } = setup();
    const message = expectError(await api.post("/v2/cases", {}), 400, "validation_error");
    expect(message).toMatch(/^title: .*; client_name: /);
  });
});

describe("GET /v2/cases/{case_id}", () => {
  it("returns the case with 200", async () => {
    const { api } = setup();
    const created = await createCase(api);
    const response = await api.get(`/v2/cases/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created);
  });
});

describe("GET /v2/cases?external_id=", () => {
  it("lists only the cases whose external_id is exactly the one given, across pages", async () => {
    const { api } = setup();
    const first = await createCase(api, { external_id: "matter-7" });
    await createCase(api, { external_id: "matter-70" });
    await createCase(api, { external_id: "MATTER-7" });
    await createCase(api);
    const second = await createCase(api, { external_id: "matter-7" });

    const page1 = await api.get<ListEnvelope<Case>>("/v2/cases?external_id=matter-7&limit=1");
    expect(page1.body.results.map((c) => c.id)).toEqual([second.id]);
    const page2 = await api.get<ListEnvelope<Case>>(page1.body.next!);
    expect(page2.body.results.map((c) => c.id)).toEqual([first.id]);
    expect(page2.body.next).toBeNull();
    const none = await api.get<ListEnvelope<Case>>("/v2/cases?external_id=matter");
    expect(none.body.results).toEqual([]);
  });
});

describe("PATCH /v2/cases/{case_id}", () => {
  it("changes only the supplied fields and answers 200", async () => {
    const { mock, api } = setup();
    const created = await createCase(api, { description: "old", external_id: "ext-1" });
    mock.clock.advance("5m");
    const response = await api.patch<Case>(`/v2/cases/${created.id}`, { title: "New title" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...created,
      title: "New title",
      updated_at: "2026-03-01T10:05:00.000Z",
    });
    expect((await api.get(`/v2/cases/${created.id}`)).body).toEqual(response.body);
  });

  it("clears nullable fields with null", async () => {
    const { api } = setup();
    const created = await createCase(api, {
      description: "d",
      client_email: "a@example.com",
      external_id: "e",
    });
    const response = await api.patch<Case>(`/v2/cases/${created.id}`, {
      description: null,
      client_email: null,
      external_id: null,
    });
    expect(response.body).toMatchObject({
      description: null,
      client_email: null,
      external_id: null,
    });
  });

  it("moves status to any of the four values, archived included", async () => {
    const { api } = setup();
    const created = await createCase(api);
    for (const status of ["pending", "closed", "archived", "active"]) {
      const response = await api.patch<Case>(`/v2/cases/${created.id}`, { status });
      expect(response.body.status).toBe(status);
    }
  });

  it("moves updated_at strictly forward even when the clock stands still", async () => {
    const { api } = setup();
    const created = await createCase(api);
    const first = await api.patch<Case>(`/v2/cases/${created.id}`, { title: "a" });
    const second = await api.patch<Case>(`/v2/cases/${created.id}`, { title: "b" });
    expect(first.body.updated_at).toBe("2026-03-01T10:00:00.001Z");
    expect(second.body.updated_at).toBe("2026-03-01T10:00:00.002Z");
    expect(second.body.created_at).toBe(START);
  });

  it("an empty patch changes nothing, updated_at included", async () => {
    const { api } = setup();
    const created = await createCase(api);
    const response = await api.patch<Case>(`/v2/cases/${created.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created);
  });

  it("refuses fields that cannot be updated and null titles", async () => {
    const { api } = setup();
    const created = await createCase(api);
    const unknown = await api.patch(`/v2/cases/${created.id}`, { client_name: "Someone" });
    expect(expectError(unknown, 400, "validation_error")).toBe("client_name: Unknown property");
    expectError(
      await api.patch(`/v2/cases/${created.id}`, { title: null }),
      400,
      "validation_error",
    );
  });

  it("answers malformed JSON with 400 validation_error", async () => {
    const { api } = setup();
    const created = await createCase(api);
    const response = await api.call("PATCH", `/v2/cases/${created.id}`, { raw: "nope" });
    expectError(response, 400, "validation_error");
  });
});

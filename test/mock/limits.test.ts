import { describe, expect, it } from "vitest";
import type { SignUploadResponse } from "../../src/schemas/uploads.js";
import { LIMITS_NOW, type LimitCase, limitCases } from "../fixtures/limits.js";
import {
  type Api,
  createCase,
  expectError,
  type JsonResponse,
  setup,
  uploadDocument,
} from "./helpers.js";

function withField(row: LimitCase, value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { ...row.base };
  if (value === undefined) delete body[row.field];
  else body[row.field] = value;
  return body;
}

async function send(row: LimitCase, value: unknown): Promise<JsonResponse<unknown>> {
  const { mock, api } = setup({ now: LIMITS_NOW });
  const body = withField(row, value);
  switch (row.schema) {
    case "CaseCreate":
      return api.post("/v2/cases", body);
    case "CaseUpdate": {
      const c = await createCase(api);
      return api.patch(`/v2/cases/${c.id}`, body);
    }
    case "DocumentUpdate": {
      const c = await createCase(api);
      const doc = await uploadDocument(mock, api, c.id);
      return api.patch(`/v2/documents/${doc.id}`, body);
    }
    case "SignUpload": {
      const c = await createCase(api);
      return api.post<SignUploadResponse>(`/v2/cases/${c.id}/sign-upload`, body);
    }
    case "RetrievalSignUpload":
      return api.post("/v2/retrieval-requests/sign-upload", body);
    case "DocumentList":
      return list(api, "/v2/documents", body);
    case "CaseList":
      return list(api, "/v2/cases", body);
    case "RetrievalRequestList":
      return list(api, "/v2/retrieval-requests", body);
  }
}

function list(api: Api, path: string, query: Record<string, unknown>) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return api.get(`${path}?${params}`);
}

const label = (value: unknown): string => {
  if (value === undefined) return "left out";
  if (typeof value === "string" && value.length > 24) return `a ${value.length}-character string`;
  return JSON.stringify(value);
};

describe("request limits at their boundaries", () => {
  it.each(limitCases.map((row) => [row.schema, row.field, label(row.ok), row]))(
    "%s.%s = %s is accepted",
    async (_schema, _field, _label, row) => {
      const response = await send(row as LimitCase, (row as LimitCase).ok);
      expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(200);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    },
  );

  it.each(limitCases.map((row) => [row.schema, row.field, label(row.bad), row]))(
    "%s.%s = %s is refused with 400 validation_error",
    async (_schema, _field, _label, row) => {
      const response = await send(row as LimitCase, (row as LimitCase).bad);
      const message = expectError(response, 400, "validation_error");
      expect(message).toContain(`${(row as LimitCase).field}: `);
    },
  );
});

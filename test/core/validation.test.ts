import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { validateInput } from "../../src/core/request.js";
import { MedRecords, RetrievalSignUploadRequest, ValidationError } from "../../src/index.js";
import { LIMITS_NOW, type LimitCase, limitCases } from "../fixtures/limits.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";

beforeAll(() => {
  // date_of_injury "in the past" is judged by the caller's clock.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(LIMITS_NOW));
});
afterAll(() => {
  vi.useRealTimers();
});

function requestOf(row: LimitCase, value: unknown): Record<string, unknown> {
  const request = { ...row.base };
  if (value === undefined) delete request[row.field];
  else request[row.field] = value;
  return request;
}

/** Sends `request` the way a user would, through the method the row's schema belongs to. */
async function send(row: LimitCase, request: Record<string, unknown>) {
  const { fetch, seen } = scriptedFetch([], json(200, {}));
  const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });
  const body = request as never;
  const calls: Record<LimitCase["schema"], () => PromiseLike<unknown>> = {
    CaseCreate: () => mr.cases.create(body),
    CaseUpdate: () => mr.cases.update("case_1", body),
    DocumentUpdate: () => mr.documents.update("doc_1", body),
    SignUpload: () => mr.cases.signUpload("case_1", body),
    DocumentList: () => mr.documents.list(body),
    CaseList: () => mr.cases.list(body),
    RetrievalRequestList: () => mr.retrievalRequests.list(body),
    // The retrieval-requests resource lands later; its signing schema is checked the same way.
    RetrievalSignUpload: async () =>
      validateInput(RetrievalSignUploadRequest, body, "POST /v2/retrieval-requests/sign-upload"),
  };
  const error = await Promise.resolve(calls[row.schema]()).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, sent: seen.length };
}

describe("request validation before sending", () => {
  it.each(limitCases.map((row) => [`${row.schema}.${row.field}: ${row.why}`, row] as const))(
    "%s",
    async (_, row) => {
      const accepted = await send(row, requestOf(row, row.ok));
      expect(accepted.error).toBeUndefined();
      if (row.schema !== "RetrievalSignUpload") expect(accepted.sent).toBe(1);

      const refused = await send(row, requestOf(row, row.bad));
      expect(refused.error).toBeInstanceOf(ValidationError);
      const error = refused.error as ValidationError;
      expect(error.requestId).toBeUndefined();
      expect(error.issues.map((i) => i.path)).toContain(row.field);
      expect(error.message).toContain(row.field);
      expect(refused.sent).toBe(0);
    },
  );
});

import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../../src/core/errors.js";
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  InvalidRequestError,
  LimitExceededError,
  MedRecords,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../../src/index.js";
import { API_KEY, apiError, BASE_URL, scriptedFetch } from "../helpers/scripted-fetch.js";

const table: Array<[number, string, new (...args: never[]) => APIError]> = [
  [400, "validation_error", ValidationError],
  [400, "invalid_request", InvalidRequestError],
  [400, "upload_expired", BadRequestError],
  [401, "invalid_api_key", AuthenticationError],
  [403, "insufficient_scope", PermissionError],
  [404, "not_found", NotFoundError],
  [409, "conflict", ConflictError],
  [409, "limit_exceeded", LimitExceededError],
  [415, "unsupported_media_type", UnsupportedMediaTypeError],
  [429, "rate_limited", RateLimitError],
  [500, "internal_error", InternalServerError],
  [418, "teapot", APIError],
];

describe("error mapping", () => {
  it.each(table)("%i %s becomes %o with status, code and request id", async (status, code, cls) => {
    const { fetch } = scriptedFetch([apiError(status, code, "why", { "retry-after": "100" })]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 });
    const error = await mr.cases.retrieve("case_1").catch((e) => e);
    expect(error).toBeInstanceOf(cls);
    expect(error.constructor).toBe(cls);
    expect(error).toMatchObject({
      status,
      code,
      requestId: `req_test_${status}`,
      serviceMessage: "why",
    });
    expect(error.message).toBe(
      `GET /v2/cases/{case_id}: ${status} ${code}: why (request req_test_${status})`,
    );
  });

  it("a 403 names the missing scope", async () => {
    const { fetch } = scriptedFetch([
      apiError(403, "insufficient_scope", "This API key lacks the required scope cases:write."),
    ]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    const error = await mr.cases.create({ title: "t", client_name: "c" }).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error.requiredScope).toBe("cases:write");
  });

  it("Retry-After is read as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("7")).toBe(7);
    expect(
      parseRetryAfter(
        new Date(Date.parse("2026-01-01T00:00:30Z")).toUTCString(),
        Date.parse("2026-01-01T00:00:00Z"),
      ),
    ).toBe(30);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it("an identifier that is empty is refused before sending", async () => {
    const { fetch, seen } = scriptedFetch([]);
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    const error = await mr.cases.retrieve("").catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([{ path: "case_id", message: expect.any(String) }]);
    expect(seen).toHaveLength(0);
  });
});

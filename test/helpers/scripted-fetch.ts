/** A fetch that answers from a script and records every request it saw. */
export interface Seen {
  method: string;
  url: string;
  headers: Headers;
  at: number;
  body: string | undefined;
}

export type Answer =
  | Response
  | Error
  | "hang"
  | ((request: Request) => Response | Promise<Response>);

export function scriptedFetch(answers: Answer[], fallback?: Answer) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body ? await request.clone().text() : undefined;
    seen.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      at: performance.now(),
      body,
    });
    const answer = answers.shift() ?? fallback;
    if (answer === undefined)
      throw new Error(`scriptedFetch: no answer left for ${request.method} ${request.url}`);
    if (answer === "hang") {
      return new Promise((_, reject) => {
        const signal = init?.signal ?? request.signal;
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    if (answer instanceof Error) throw answer;
    if (typeof answer === "function") return answer(request);
    return answer.clone();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json",
      "x-request-id": `req_test_${status}`,
      ...headers,
    },
  });
}

export function apiError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) {
  return json(status, { error: { code, message } }, headers);
}

/** A fetch failure as Node's fetch reports a refused or reset connection, or an unknown host. */
export function connectionError(code: "ECONNREFUSED" | "ECONNRESET" | "ENOTFOUND"): Error {
  return new TypeError("fetch failed", {
    cause: Object.assign(new Error(`connect ${code}`), { code }),
  });
}

export const BASE_URL = "https://api.medrecords.test";
export const API_KEY = "medrecords_sk_live_TESTKEY0123456789abcdefghijklmn";

export const sampleCase = {
  id: "case_1",
  case_number: "MR-000001",
  title: "Doe v. Acme",
  client_name: "Jane Doe",
  case_category: "personal_injury",
  status: "active",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};

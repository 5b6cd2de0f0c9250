/**
 * The client reads the contract (src/contract): every operation is reachable
 * through a resource method, which sends the operation's method to its path,
 * names it by its path template in hooks and logs, and retries a 503 only
 * when the operation is idempotent.
 */
import { describe, expect, it } from "vitest";
import { CONTRACT, OPERATION_IDS, type OperationId } from "../../src/contract/index.js";
import { MedRecords } from "../../src/index.js";
import { callOperation, methodOf } from "../helpers/client-calls.js";
import { API_KEY, apiError, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";

const ID = "x_1";

/** Calls an operation through its resource method against a 503 (Retry-After: 0), then a page. */
async function callThrough503(id: OperationId) {
  const op = CONTRACT[id];
  const attempts: string[] = [];
  const { fetch, seen } = scriptedFetch(
    [apiError(503, "service_unavailable", "down", { "retry-after": "0" })],
    op.status === 204
      ? new Response(null, { status: 204 })
      : json(op.status, { results: [], next: null, previous: null }),
  );
  const mr = new MedRecords({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    fetch,
    maxRetries: 1,
    hooks: { onRequest: (info) => attempts.push(`${info.method} ${info.path} #${info.attempt}`) },
  });
  await Promise.resolve(callOperation(mr, id, { ids: () => ID })).then(
    () => undefined,
    () => undefined,
  );
  return { attempts, seen };
}

describe("the client calls the contract's operations", () => {
  it("names, for every operation of the contract, a method the client has", () => {
    const mr = new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL });
    for (const id of OPERATION_IDS) {
      const [resource, method] = methodOf(id).split(".") as [keyof MedRecords, string];
      expect(typeof (mr[resource] as unknown as Record<string, unknown>)[method], id).toBe(
        "function",
      );
    }
  });

  it.each(OPERATION_IDS.map((id) => [`${id} (${methodOf(id)})`, id] as const))(
    "%s: sends the operation's method to its path, named by its template, retrying a 503 only when idempotent",
    async (_, id) => {
      const op = CONTRACT[id];
      const { attempts, seen } = await callThrough503(id);
      const once = `${op.method} ${op.path}`;
      expect(attempts).toEqual(op.idempotent ? [`${once} #1`, `${once} #2`] : [`${once} #1`]);
      expect(seen[0]?.method).toBe(op.method);
      expect(new URL(seen[0]!.url).pathname).toBe(op.path.replace(/\{\w+\}/g, ID));
    },
  );
});

/**
 * Every id that goes into a path template, for every method: "" and the dot
 * segments "." and ".." are refused before sending (a URL parser resolves a
 * dot segment away, so `cases.retrieve("..")` would call `GET /v2/`), and
 * every other value is sent, percent-encoded, in its own segment.
 */
import { describe, expect, it } from "vitest";
import { CONTRACT, OPERATION_IDS, pathParamNames } from "../../src/contract/index.js";
import { MedRecords, ValidationError } from "../../src/index.js";
import { callOperation, methodOf } from "../helpers/client-calls.js";
import { API_KEY, BASE_URL, json, scriptedFetch } from "../helpers/scripted-fetch.js";

const file = () => ({
  file: new Uint8Array([1]),
  file_name: "a.pdf",
  file_type: "application/pdf",
});

interface Row {
  /** The path template the id fills, as the contract declares it. */
  template: string;
  /** The placeholder under test; any other placeholder gets `OTHER`. */
  param: string;
  call: (mr: MedRecords, id: string) => PromiseLike<unknown>;
}

const OTHER = "x_1";

/** Every placeholder of every operation's path template, through the operation's client method. */
const fromContract: [string, Row][] = OPERATION_IDS.flatMap((operationId) => {
  const template = CONTRACT[operationId].path;
  const params = pathParamNames(template);
  return params.map((param): [string, Row] => [
    params.length > 1 ? `${methodOf(operationId)} (${param})` : methodOf(operationId),
    {
      template,
      param,
      call: (mr, id) =>
        callOperation(mr, operationId, { ids: (name) => (name === param ? id : OTHER) }),
    },
  ]);
});

/** Methods beyond one operation's, which fill a template on the way. */
const composite: [string, Row][] = [
  [
    "cases.uploadDocument",
    {
      template: "/v2/cases/{case_id}/sign-upload",
      param: "case_id",
      call: (mr, id) => mr.cases.uploadDocument(id, file()),
    },
  ],
  [
    "retrievalRequests.uploadFile({ case_id })",
    {
      template: "/v2/cases/{case_id}/sign-upload",
      param: "case_id",
      call: (mr, id) => mr.retrievalRequests.uploadFile({ ...file(), case_id: id }),
    },
  ],
];

function client() {
  const { fetch, seen } = scriptedFetch([], () => json(200, {}));
  return { mr: new MedRecords({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 0 }), seen };
}

const table = [...fromContract, ...composite];

describe("ids in a path template", () => {
  describe.each(table)("%s", (_, row) => {
    it.each(["", ".", ".."])(
      "refuses %j with a ValidationError naming the parameter, sending nothing",
      async (id) => {
        const { mr, seen } = client();
        const error = await Promise.resolve(row.call(mr, id)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.map((i) => i.path)).toEqual([row.param]);
        expect((error as ValidationError).message).toContain(`${row.template} (not sent)`);
        expect(seen).toHaveLength(0);
      },
    );

    it.each(["...", ".a", "a..", "../a"])(
      "sends %j percent-encoded in its own segment",
      async (id) => {
        const { mr, seen } = client();
        // The answer ({}) is not what the method wants (an upload goes on to the PUT); only the request matters.
        await Promise.resolve(row.call(mr, id)).then(
          () => undefined,
          () => undefined,
        );
        const expected = row.template.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeURIComponent(name === row.param ? id : OTHER),
        );
        expect(seen.length).toBeGreaterThanOrEqual(1);
        expect(new URL(seen[0]!.url).pathname).toBe(expected);
      },
    );
  });
});

/**
 * The client's operation-to-method join is derived from the methods (src/client-methods.ts):
 * each names its operation in its return type, which only a call of that operation compiles
 * against. `tsc` (in `npm test`) checks the `@ts-expect-error` lines: each must fail to compile,
 * or the directive itself is the error.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { ClientMethods, OperationOfMethod, Unbound } from "../../src/client-methods.js";
import { type Contract, cases, defineOperation, documents } from "../../src/contract/index.js";
import type { APIPromise } from "../../src/core/api-promise.js";
import { type PagePromise, paginate } from "../../src/core/pagination.js";
import type { Core } from "../../src/core/request.js";
import type { MedRecords } from "../../src/index.js";
import { Case, type CaseUpdate } from "../../src/schemas/cases.js";
import type { Document } from "../../src/schemas/documents.js";

declare const core: Core;
declare const update: CaseUpdate;

/** A read the contract does not have yet, with the same path ids as `getCase`. */
const summary = defineOperation({
  operationId: "getCaseSummary",
  method: "GET",
  path: "/v2/cases/{case_id}/summary",
  summary: "Read a case's summary",
  tag: "Cases",
  status: 200,
  response: Case,
  scope: "cases:read",
} as const);

describe("a client method and its operation", () => {
  it("is read from the method's return type", () => {
    expectTypeOf<OperationOfMethod<MedRecords["cases"]["retrieve"]>>().toEqualTypeOf<"getCase">();
    expectTypeOf<OperationOfMethod<MedRecords["cases"]["list"]>>().toEqualTypeOf<"listCases">();
    // A method that calls more than one operation names none.
    expectTypeOf<OperationOfMethod<MedRecords["cases"]["uploadDocument"]>>().toBeNever();
    expectTypeOf<ClientMethods["getCase"]>().toEqualTypeOf<"cases.retrieve">();
    expectTypeOf<ClientMethods["listCases"]>().toEqualTypeOf<"cases.list">();
  });

  it("bound to another operation does not compile", () => {
    function retrieve(caseId: string): APIPromise<Case, "getCase"> {
      return core.call(cases.retrieve, { params: { case_id: caseId } });
    }
    function misbound(caseId: string): APIPromise<Case, "getCase"> {
      // @ts-expect-error: a method naming getCase that calls updateCase
      return core.call(cases.update, { params: { case_id: caseId }, body: update });
    }
    function sameShape(caseId: string): APIPromise<Case, "getCase"> {
      // @ts-expect-error: the same answer from an operation with the same path ids
      return core.call(summary, { params: { case_id: caseId } });
    }
    function otherList(): PagePromise<Document, "listCases"> {
      // @ts-expect-error: a list method naming listCases that pages the documents
      return paginate(core, documents.list, { query: {} });
    }
    // @ts-expect-error: a row naming a method of another operation with the same path ids
    const row: ClientMethods["getCase"] = "cases.update";
    expectTypeOf(retrieve).toBeFunction();
    expectTypeOf(misbound).toBeFunction();
    expectTypeOf(sameShape).toBeFunction();
    expectTypeOf(otherList).toBeFunction();
    expectTypeOf(row).toBeString();
  });

  it("an operation no method names is named", () => {
    expectTypeOf<Unbound<Contract>>().toBeNever();
    expectTypeOf<
      Unbound<Contract & { getCaseSummary: typeof summary }>
    >().toEqualTypeOf<"getCaseSummary">();
  });
});

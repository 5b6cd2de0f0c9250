/**
 * A handler's answer is typed from its operation's declaration (src/mock/http/bind.ts,
 * `ResultOf`): the success body for a read, a page of the items for a list,
 * nothing for a 204. `tsc` (in `npm test`) checks the `@ts-expect-error` lines:
 * each must fail to compile, or the directive itself is the error.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { Contract } from "../../src/contract/index.js";
import type { Handler, ResultOf } from "../../src/mock/http/bind.js";
import type { Case } from "../../src/schemas/cases.js";
import type { Document } from "../../src/schemas/documents.js";

declare const someCase: Case;
declare const someDocument: Document;
const page = <T>(results: T[]) => ({ results, nextCursor: null, previousCursor: null });

describe("a handler's answer", () => {
  it("is the operation's success body, a page of its items, or nothing for a 204", () => {
    expectTypeOf<ResultOf<Contract["getCase"]>>().toEqualTypeOf<Case>();
    expectTypeOf<ResultOf<Contract["listDocuments"]>["results"]>().toEqualTypeOf<Document[]>();
    expectTypeOf<ResultOf<Contract["deleteWebhook"]>>().toEqualTypeOf<undefined>();
  });

  it("that does not fit the declared response does not compile", () => {
    const fits: Handler<Contract["getCase"]> = () => someCase;
    // @ts-expect-error: a case read answering a made-up summary
    const madeUp: Handler<Contract["getCase"]> = ({ params }) => ({
      case_id: params.case_id,
      documents: "many",
    });
    // @ts-expect-error: a list answering documents where cases are declared
    const wrongItems: Handler<Contract["listCases"]> = () => page([someDocument]);
    // @ts-expect-error: a 204 answering a body
    const bodyFor204: Handler<Contract["deleteWebhook"]> = () => someCase;
    expectTypeOf(fits).toBeFunction();
    expectTypeOf(madeUp).toBeFunction();
    expectTypeOf(wrongItems).toBeFunction();
    expectTypeOf(bodyFor204).toBeFunction();
  });
});

/** The API's signing endpoints; the bytes themselves go to the storage origin. */

import { assertCaseExists } from "../../model/cases.js";
import type { ModelContext } from "../../model/state.js";
import { signUpload } from "../../model/uploads.js";
import type { Handlers } from "../bind.js";

export function uploadHandlers(ctx: ModelContext) {
  return {
    signCaseUpload: ({ params, body }) => {
      assertCaseExists(ctx, params.case_id);
      return signUpload(ctx, params.case_id, body);
    },
    signRetrievalUpload: ({ body }) => signUpload(ctx, null, body),
  } satisfies Partial<Handlers>;
}

/** The API's signing endpoints; the bytes themselves go to the storage origin. */
import { uploads } from "../../contract/index.js";
import { bind } from "../bind.js";
import { assertCaseExists } from "../model/cases.js";
import type { ModelContext } from "../model/state.js";
import { signUpload } from "../model/uploads.js";
import type { ApiRoute } from "./shared.js";

export function uploadRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, uploads.signCase, ({ params, body }) => {
      assertCaseExists(ctx, params.case_id);
      return signUpload(ctx, params.case_id, body);
    }),
    bind(ctx, uploads.signRetrieval, ({ body }) => signUpload(ctx, null, body)),
  ];
}

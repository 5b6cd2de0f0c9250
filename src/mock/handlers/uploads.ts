/** The API's signing endpoints; the bytes themselves go to the storage origin. */
import { RetrievalSignUploadRequest, SignUploadRequest } from "../../schemas/uploads.js";
import { assertCaseExists } from "../model/cases.js";
import type { ModelContext } from "../model/state.js";
import { signUpload } from "../model/uploads.js";
import { type ApiRoute, json, NoQuery, readBody, readQuery } from "./shared.js";

export function uploadRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v2/cases/:case_id/sign-upload",
      scope: "documents:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        const body = await readBody(request, SignUploadRequest);
        const caseId = params.case_id as string;
        assertCaseExists(ctx, caseId);
        return json(200, signUpload(ctx, caseId, body));
      },
    },
    {
      method: "POST",
      pattern: "/v2/retrieval-requests/sign-upload",
      scope: "retrievals:write",
      async handle({ request, url }) {
        readQuery(url, NoQuery);
        const body = await readBody(request, RetrievalSignUploadRequest);
        return json(200, signUpload(ctx, null, body));
      },
    },
  ];
}

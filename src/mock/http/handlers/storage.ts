/**
 * The presigned origin. Like an object store it trusts the token in the path
 * and ignores Authorization, so it works whether or not a client sends one.
 */
import { redeemDownload } from "../../model/downloads.js";
import type { ModelContext } from "../../model/state.js";
import { putUpload } from "../../model/uploads.js";
import type { StorageRoute } from "./shared.js";

export function storageRoutes(ctx: ModelContext): StorageRoute[] {
  return [
    {
      method: "PUT",
      pattern: "/uploads/:token",
      async handle({ request, params }) {
        const etag = await putUpload(ctx, params.token as string, {
          contentType: request.headers.get("content-type"),
          contentLength: request.headers.get("content-length"),
          readBody: async () => new Uint8Array(await request.arrayBuffer()),
        });
        return new Response(null, { status: 200, headers: { etag } });
      },
    },
    {
      method: "GET",
      pattern: "/downloads/:token",
      handle({ params }) {
        const file = redeemDownload(ctx, params.token as string);
        return new Response(file.bytes.slice(), {
          status: 200,
          headers: {
            "content-type": file.fileType,
            "content-length": String(file.bytes.byteLength),
          },
        });
      },
    },
  ];
}

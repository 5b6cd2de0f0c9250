import { causeCode } from "../internal/cause-code.js";
import type { DownloadResponse } from "../schemas/documents.js";
import { ConnectionError, DownloadError, TimeoutError } from "./errors.js";
import type { RequestOptions } from "./options.js";
import type { Core } from "./request.js";
import { errorCode } from "./uploads.js";

/**
 * The file behind a download operation, as a streaming `Response`: asks
 * `sign` for a fresh presigned address and GETs it without the API key (the
 * storage origin never sees it). A 403 means the address expired before it
 * was used (a slow clock, a long queue): signed once more and fetched again.
 * `timeoutMs` bounds the wait for the response's headers, not the body,
 * which streams as the caller reads it.
 */
export async function fetchContent(
  core: Core,
  sign: () => PromiseLike<DownloadResponse>,
  where: string,
  options: RequestOptions = {},
): Promise<Response> {
  const timeoutMs = options.timeoutMs ?? core.options.timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const { download_url } = await sign();
    const response = await getWithin(core, download_url, where, timeoutMs, options.signal);
    if (response.ok) return response;
    const code = await errorCode(response);
    if (response.status !== 403 || attempt > 1) {
      throw new DownloadError(
        `${where}: the download address answered ${response.status}${code ? ` ${code}` : ""}.`,
        response.status,
        code,
      );
    }
  }
}

async function getWithin(
  core: Core,
  url: string,
  where: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    return await core.storageFetch(url, { method: "GET", signal: controller.signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (controller.signal.aborted) {
      throw new TimeoutError(
        `${where}: the download address gave no response within ${timeoutMs} ms.`,
        {
          cause: error,
        },
      );
    }
    const code = causeCode(error);
    throw new ConnectionError(
      `${where}: connection to the download address failed${code ? ` (${code})` : ""}.`,
      { cause: error },
    );
  } finally {
    // Only the wait for headers is bounded; the body streams as long as it is read.
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

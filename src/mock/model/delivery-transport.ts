/**
 * How a delivery attempt reaches a webhook URL given by name when private
 * addresses are not allowed: over node:http(s), with a `lookup` that
 * resolves the name once, checks every address it got, and hands the socket
 * only those checked addresses. The check and the connection see the same
 * answer, so a name that turns private between them (DNS rebinding) is never
 * connected to, and a lookup that fails or finds nothing sends nothing. The
 * URL is passed as it is, so the `Host` header and TLS SNI (and certificate
 * checks) stay the name.
 *
 * An interceptor of node:http (MSW's `setupServer`, nock) answers before any
 * lookup, so a test suite's `*.test` receivers need no DNS. A connection is
 * never reused: each attempt resolves and checks afresh.
 */
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { addressesReason, type LookupHost, unresolvableReason } from "./webhook-urls.js";

/** Bytes of a refusal's answer kept (the engine reads the receiver's error code from them). */
const REFUSAL_BYTES = 1024;

/** The host of a delivery's URL failed the private-address rule at connection time. */
export class HostRefusedError extends Error {
  override name = "HostRefusedError";
  constructor(readonly reason: string) {
    super(`Not sent: the host is ${reason}`);
  }
}

type NodeHttp = typeof import("node:http");

let modules:
  | Promise<{ http: NodeHttp; https: typeof import("node:https") } | undefined>
  | undefined;

/** node:http and node:https, or undefined where the runtime has none (a browser). */
export function nodeHttpModules() {
  modules ??= Promise.all([import("node:http"), import("node:https")]).then(
    ([http, https]) => ({ http: http.default ?? http, https: https.default ?? https }),
    () => undefined,
  );
  return modules;
}

/**
 * The `lookup` given to the socket: `lookupHost` once, every address checked,
 * only checked addresses returned. A failed lookup, no address, or any
 * address that is not public fails the connection with a `HostRefusedError`.
 */
export function checkedLookup(
  lookupHost: LookupHost,
  publicForTesting?: ReadonlySet<string>,
): LookupFunction {
  return (hostname, options, callback) => {
    lookupHost(hostname).then(
      (addresses) => {
        const refused =
          addresses.length === 0
            ? "a name that does not resolve"
            : addressesReason(addresses, publicForTesting);
        if (refused !== undefined) {
          callback(new HostRefusedError(refused) as NodeJS.ErrnoException, "", 0);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const all: LookupAddress[] = addresses
          .map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
          .filter((entry) => wanted === 0 || entry.family === wanted);
        if (all.length === 0) {
          callback(
            new HostRefusedError(`a name without an IPv${wanted} address`) as NodeJS.ErrnoException,
            "",
            0,
          );
        } else if (options.all) {
          (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, all);
        } else {
          callback(null, all[0]!.address, all[0]!.family);
        }
      },
      (error: unknown) =>
        callback(new HostRefusedError(unresolvableReason(error)) as NodeJS.ErrnoException, "", 0),
    );
  };
}

/**
 * A `fetch` for delivery POSTs (a string body, no redirects followed) over
 * node:http(s) with `lookup`. A 2xx or 3xx answer's body is discarded; of
 * a refusal, the first bytes are kept, for the receiver's error code.
 */
export function pinnedFetch(
  node: { http: NodeHttp; https: typeof import("node:https") },
  lookup: LookupFunction,
): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const body = typeof init?.body === "string" ? init.body : "";
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers["content-length"] = String(Buffer.byteLength(body));
    const send = url.protocol === "https:" ? node.https.request : node.http.request;
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const request = send(
        url,
        {
          method: init?.method ?? "POST",
          headers,
          lookup,
          // A fresh connection per attempt: a kept one would skip the lookup and its check.
          agent: false,
          ...(signal ? { signal } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 599) {
            response.resume();
            reject(new TypeError(`fetch failed: invalid HTTP status ${status}`));
            return;
          }
          if (status < 400) {
            response.resume();
            resolve(new Response(null, { status }));
            return;
          }
          // A refusal's first bytes, for the receiver's error code; the rest is dropped.
          const chunks: Buffer[] = [];
          let length = 0;
          const done = () => {
            response.removeAllListeners("data");
            response.resume();
            resolve(new Response(Buffer.concat(chunks).subarray(0, REFUSAL_BYTES), { status }));
          };
          response.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            length += chunk.length;
            if (length >= REFUSAL_BYTES) done();
          });
          response.once("end", done);
          response.once("error", done);
        },
      );
      request.on("error", (error) => {
        // An abort by the per-attempt timeout rejects as fetch would, with the signal's reason.
        reject(signal?.aborted ? signal.reason : error);
      });
      request.end(body);
    });
  }) as typeof fetch;
}

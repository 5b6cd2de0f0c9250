/**
 * The forms a canary commonly takes on its way out, so that the leak check
 * finds it in them: percent-encoded in a URL or a form body (`+` for a
 * space), `\uXXXX`-escaped in JSON, base64 or base64url (a header, a token, a
 * log field), gzip- or zlib-compressed inside base64, and any of those nested
 * a few times. Case is compared folded (`findCanaries`). Decoding is
 * best-effort and bounded: a few levels, a bounded number of views per text.
 */

/** A decoded form of a text, and how it was decoded ("percent", "base64+gzip"...). */
export interface TextView {
  readonly text: string;
  readonly how: string;
}

/** How many decoding steps are chained (e.g. percent, then base64, then gzip). */
const MAX_DEPTH = 3;
/** Most decoded views of one text, so a log line of many tokens costs a bounded amount. */
const MAX_VIEWS = 64;
/** Shortest base64 run tried: 8 characters decode to 6 bytes, shorter than any canary. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

type Zlib = {
  gunzipSync(data: Uint8Array): Uint8Array;
  inflateSync(data: Uint8Array): Uint8Array;
};

/** node:zlib when the runtime has it (Node 22.3+, Bun, Deno), for compressed payloads. */
function zlib(): Zlib | undefined {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    return typeof get === "function" ? (get("node:zlib") as Zlib | undefined) : undefined;
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder("utf-8");

/**
 * The text of bytes: decompressed first when they are gzip or zlib data,
 * then read as UTF-8 (invalid sequences replaced). `how` names the
 * compression, if any.
 */
export function bytesText(bytes: Uint8Array): TextView {
  const z = bytes.length > 2 ? zlib() : undefined;
  if (z && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return { text: utf8.decode(z.gunzipSync(bytes)), how: "gzip" };
    } catch {
      // Not gzip after all: read as it is.
    }
  }
  // zlib's header: CM 8 and a check value making the first two bytes a multiple of 31.
  if (z && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0) {
    try {
      return { text: utf8.decode(z.inflateSync(bytes)), how: "zlib" };
    } catch {
      // Not zlib data.
    }
  }
  return { text: utf8.decode(bytes), how: "" };
}

function decodePercent(text: string): string | undefined {
  if (!/%[0-9a-f]{2}|\+/i.test(text)) return undefined;
  const spaced = text.replace(/\+/g, " ");
  // Escape by escape, so that one broken sequence does not spoil the rest.
  return spaced.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  });
}

function decodeUnicodeEscapes(text: string): string | undefined {
  if (!/\\u[0-9a-f]{4}/i.test(text)) return undefined;
  return text.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

function base64Bytes(run: string): Uint8Array | undefined {
  const standard = run.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (standard.length % 4 === 1) return undefined;
  try {
    const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Decodings of base64 runs in `text`, each tried from 4 starting points (a run may begin with a word). */
function base64Views(text: string): TextView[] {
  const views: TextView[] = [];
  for (const [run] of text.matchAll(BASE64_RUN)) {
    for (let skip = 0; skip < 4 && run.length - skip >= 8; skip++) {
      const bytes = base64Bytes(run.slice(skip));
      if (bytes === undefined) continue;
      const decoded = bytesText(bytes);
      views.push({ text: decoded.text, how: decoded.how ? `base64+${decoded.how}` : "base64" });
    }
  }
  return views;
}

/** Every decoded form of `text` (not `text` itself), nested up to 3 decodings deep. */
export function decodedViews(text: string): TextView[] {
  const out: TextView[] = [];
  const walk = (current: string, how: string, depth: number) => {
    if (depth === MAX_DEPTH) return;
    const next: TextView[] = [];
    const percent = decodePercent(current);
    if (percent !== undefined && percent !== current) next.push({ text: percent, how: "percent" });
    const escaped = decodeUnicodeEscapes(current);
    if (escaped !== undefined) next.push({ text: escaped, how: "unicode-escape" });
    next.push(...base64Views(current));
    for (const view of next) {
      if (out.length >= MAX_VIEWS) return;
      const chained = how ? `${how}, ${view.how}` : view.how;
      out.push({ text: view.text, how: chained });
      walk(view.text, chained, depth + 1);
    }
  };
  walk(text, "", 0);
  return out;
}

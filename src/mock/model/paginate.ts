/**
 * Keyset pagination shared by every list: newest first by creation sequence,
 * with cursors that name a position rather than an offset, so a page walk
 * neither skips nor repeats items when new ones are created meanwhile.
 */
import type { ListEnvelope } from "../../schemas/common.js";
import { MockApiError } from "../http-error.js";
import { fromBase64Url, toBase64Url } from "./ids.js";

type Direction = "next" | "previous";

interface Cursor {
  direction: Direction;
  /** Sequence of the item the page continues from (exclusive). */
  seq: number;
}

export function encodeCursor(cursor: Cursor): string {
  const text = `${cursor.direction === "next" ? "n" : "p"}.${cursor.seq}`;
  return toBase64Url(new TextEncoder().encode(text));
}

/** Decodes a cursor or throws 400 validation_error. */
export function decodeCursor(value: string): Cursor {
  const bytes = fromBase64Url(value);
  const text = bytes === undefined ? "" : new TextDecoder().decode(bytes);
  const match = /^([np])\.(\d{1,15})$/.exec(text);
  if (match === null) {
    throw new MockApiError(400, "validation_error", "cursor: Invalid cursor");
  }
  return { direction: match[1] === "n" ? "next" : "previous", seq: Number(match[2]) };
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  results: T[];
  nextCursor: string | null;
  previousCursor: string | null;
}

/** One page of `items` (any order; filtering already applied). */
export function paginate<T>(
  items: Iterable<T>,
  seqOf: (item: T) => number,
  request: PageRequest,
): Page<T> {
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const sorted = [...items].sort((a, b) => seqOf(b) - seqOf(a));
  const { limit } = request;

  let start: number;
  let end: number;
  if (cursor === undefined) {
    start = 0;
    end = Math.min(limit, sorted.length);
  } else if (cursor.direction === "next") {
    start = sorted.findIndex((item) => seqOf(item) < cursor.seq);
    if (start === -1) start = sorted.length;
    end = Math.min(start + limit, sorted.length);
  } else {
    // The previous page is the `limit` items just above the cursor, still shown newest first.
    end = sorted.findIndex((item) => seqOf(item) <= cursor.seq);
    if (end === -1) end = sorted.length;
    start = Math.max(0, end - limit);
  }

  const results = sorted.slice(start, end);
  const first = results[0];
  const last = results[results.length - 1];
  // On an empty page the cursor's own position is the boundary to point back to.
  const upper = first === undefined ? cursor?.seq : seqOf(first);
  const lower = last === undefined ? cursor?.seq : seqOf(last);

  return {
    results,
    nextCursor:
      end < sorted.length && lower !== undefined
        ? encodeCursor({ direction: "next", seq: lower })
        : null,
    previousCursor:
      start > 0 && upper !== undefined ? encodeCursor({ direction: "previous", seq: upper }) : null,
  };
}

/**
 * The list envelope with absolute `next`/`previous` links: the API origin and
 * the request's path, keeping its filters and limit, with `cursor` replaced.
 */
export function toListEnvelope<T, R>(
  page: Page<T>,
  map: (item: T) => R,
  link: { baseUrl: string; url: URL },
): ListEnvelope<R> {
  const href = (cursor: string | null): string | null => {
    if (cursor === null) return null;
    const query = new URLSearchParams(link.url.search);
    query.delete("cursor");
    query.append("cursor", cursor);
    return `${link.baseUrl}${link.url.pathname}?${query.toString()}`;
  };
  return {
    results: page.results.map(map),
    next: href(page.nextCursor),
    previous: href(page.previousCursor),
  };
}

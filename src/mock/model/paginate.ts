/**
 * Keyset pagination shared by every list: newest first by creation sequence,
 * with cursors that name a position rather than an offset, so a page walk
 * neither skips nor repeats items when new ones are created meanwhile.
 */
import type { ListEnvelope } from "../../schemas/common.js";
import { MockApiError } from "../runtime/http-error.js";
import { fromBase64Url, toBase64Url } from "../runtime/ids.js";

/**
 * Where an item stands in a list: one number (a creation sequence) or a tuple
 * compared left to right (the event log's created_at, then sequence). Lists
 * are greatest key first, which is newest first.
 */
export type PageKey = number | readonly number[];

interface Cursor {
  direction: "next" | "previous";
  /** Key of the item the page continues from (exclusive). */
  key: readonly number[];
}

const asTuple = (key: PageKey): readonly number[] => (typeof key === "number" ? [key] : key);

/** Negative when `a` is listed before `b` (a greater key). */
function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (b[i] ?? 0) - (a[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

export function encodeCursor(cursor: Cursor): string {
  const text = `${cursor.direction === "next" ? "n" : "p"}.${cursor.key.join(".")}`;
  return toBase64Url(new TextEncoder().encode(text));
}

/** Decodes a cursor of `arity` key parts or throws 400 validation_error. */
export function decodeCursor(value: string, arity: number): Cursor {
  const bytes = fromBase64Url(value);
  const text = bytes === undefined ? "" : new TextDecoder().decode(bytes);
  const match = /^([np])((?:\.-?\d{1,16})+)$/.exec(text);
  const key = match?.[2]?.slice(1).split(".").map(Number);
  if (match === null || key === undefined || key.length !== arity) {
    throw new MockApiError(400, "validation_error", "cursor: Invalid cursor");
  }
  return { direction: match[1] === "n" ? "next" : "previous", key };
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

/**
 * One page of `items` (any order; filtering already applied), greatest key
 * first. `arity` is the number of parts of every key, so that a cursor of
 * another list is refused even when this one is empty.
 */
export function paginate<T>(
  items: Iterable<T>,
  keyOf: (item: T) => PageKey,
  request: PageRequest,
  arity = 1,
): Page<T> {
  const keyed = [...items].map((item) => ({ item, key: asTuple(keyOf(item)) }));
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, arity);
  const sorted = keyed.sort((a, b) => compareKeys(a.key, b.key));
  const { limit } = request;

  let start: number;
  let end: number;
  if (cursor === undefined) {
    start = 0;
    end = Math.min(limit, sorted.length);
  } else if (cursor.direction === "next") {
    start = sorted.findIndex(({ key }) => compareKeys(cursor.key, key) < 0);
    if (start === -1) start = sorted.length;
    end = Math.min(start + limit, sorted.length);
  } else {
    // The previous page is the `limit` items just above the cursor, still shown newest first.
    end = sorted.findIndex(({ key }) => compareKeys(cursor.key, key) <= 0);
    if (end === -1) end = sorted.length;
    start = Math.max(0, end - limit);
  }

  const page = sorted.slice(start, end);
  // On an empty page the cursor's own position is the boundary to point back to.
  const upper = page[0]?.key ?? cursor?.key;
  const lower = page[page.length - 1]?.key ?? cursor?.key;
  return {
    results: page.map(({ item }) => item),
    nextCursor:
      end < sorted.length && lower !== undefined
        ? encodeCursor({ direction: "next", key: lower })
        : null,
    previousCursor:
      start > 0 && upper !== undefined ? encodeCursor({ direction: "previous", key: upper }) : null,
  };
}

/**
 * The same page as `paginate` over the items of `ascending[from..to)` that
 * `matches`, for a list kept sorted by key, smallest first (the event log):
 * a binary search to the cursor, then a scan of the page and one item past
 * each end, instead of sorting the whole list for every page. The page walk
 * of a 100 000-event log is then linear instead of quadratic.
 */
export function paginateSorted<T>(
  ascending: readonly T[],
  keyOf: (item: T) => readonly number[],
  matches: (item: T) => boolean,
  request: PageRequest,
  arity: number,
  range: { from: number; to: number } = { from: 0, to: ascending.length },
): Page<T> {
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, arity);
  const { limit } = request;
  const { from, to } = range;
  /** The first index of [from, to) whose key is above `key` (or at or above it, `inclusive`). */
  const boundary = (key: readonly number[], inclusive: boolean): number => {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = compareKeys(key, keyOf(ascending[mid] as T));
      if (order > 0 || (inclusive && order === 0)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const anyBelow = (index: number): boolean => {
    for (let i = index - 1; i >= from; i--) if (matches(ascending[i] as T)) return true;
    return false;
  };
  const anyFrom = (index: number): boolean => {
    for (let i = index; i < to; i++) if (matches(ascending[i] as T)) return true;
    return false;
  };

  const results: T[] = [];
  let hasNext: boolean;
  let hasPrevious: boolean;
  if (cursor === undefined || cursor.direction === "next") {
    // Newest first from just below the cursor (or the top): items of smaller keys.
    const top = cursor === undefined ? to : boundary(cursor.key, true);
    let i = top - 1;
    for (; i >= from && results.length < limit; i--) {
      const item = ascending[i] as T;
      if (matches(item)) results.push(item);
    }
    hasNext = anyBelow(i + 1);
    hasPrevious = cursor !== undefined && anyFrom(top);
  } else {
    // The `limit` items just above the cursor, shown newest first.
    const bottom = boundary(cursor.key, false);
    let i = bottom;
    for (; i < to && results.length < limit; i++) {
      const item = ascending[i] as T;
      if (matches(item)) results.push(item);
    }
    results.reverse();
    hasPrevious = anyFrom(i);
    hasNext = anyBelow(bottom);
  }
  const first = results[0];
  const last = results[results.length - 1];
  const upper = first === undefined ? cursor?.key : keyOf(first);
  const lower = last === undefined ? cursor?.key : keyOf(last);
  return {
    results,
    nextCursor:
      hasNext && lower !== undefined ? encodeCursor({ direction: "next", key: lower }) : null,
    previousCursor:
      hasPrevious && upper !== undefined
        ? encodeCursor({ direction: "previous", key: upper })
        : null,
  };
}

/** The key of an item listed in creation order, for `paginateSorted`. */
export const seqKey = (item: { readonly seq: number }): readonly number[] => [item.seq];

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

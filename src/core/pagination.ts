import type { Operation } from "../contract/operation.js";
import type { WithResponse } from "./api-promise.js";
import { PaginationLoopError } from "./errors.js";
import type { RequestOptions } from "./options.js";
import type { CallInput, Core, ResponseOf } from "./request.js";

/**
 * Most items `toArray()` collects: a bound on what one call holds in memory
 * (the items are PHI). Walk longer lists with `for await`, as stripe-node's
 * `autoPagingToArray` asks.
 */
export const TO_ARRAY_LIMIT_MAX = 10_000;

/** Options of `list(...).toArray(options)`. */
export interface ToArrayOptions {
  /**
   * Most items to collect, 1 to 10 000 ({@link TO_ARRAY_LIMIT_MAX}); required,
   * so that a list that grows cannot fill memory unnoticed. Pages are fetched
   * only while fewer are collected, and the last one is cut.
   * @example 500
   */
  limit: number;
}

/** One page of a list: its items, links and cursors. */
export class Page<T> implements AsyncIterable<T> {
  /** This page's items, in the list's order. */
  readonly results: T[];
  /** Absolute address of the next page, or null on the last. */
  readonly next: string | null;
  /** Absolute address of the previous page, or null on the first. */
  readonly previous: string | null;
  /** The cursor that fetched this page (null for the first): `list({ cursor })` fetches it again. */
  readonly cursor: string | null;
  /** The cursor of the next page: `list({ cursor: page.nextCursor })` resumes after this one. */
  readonly nextCursor: string | null;
  /** `X-Request-Id` of the response this page came in: quote it to support. */
  readonly requestId: string | undefined;
  readonly #fetchUrl: (url: string) => Promise<Page<T>>;

  /** @internal Made by `list()` from each response. */
  constructor(
    envelope: { results: T[]; next: string | null; previous: string | null },
    cursor: string | null,
    fetchUrl: (url: string) => Promise<Page<T>>,
    requestId?: string,
  ) {
    this.requestId = requestId;
    this.results = envelope.results;
    this.next = envelope.next;
    this.previous = envelope.previous;
    this.cursor = cursor;
    this.nextCursor = cursorOf(envelope.next);
    this.#fetchUrl = fetchUrl;
  }

  /** Whether a page follows this one. */
  hasNextPage(): boolean {
    return this.next !== null;
  }

  /** Fetches the page `next` points to; throws on the last page. */
  getNextPage(): Promise<Page<T>> {
    if (this.next === null) return Promise.reject(new RangeError("This is the last page."));
    return this.#fetchUrl(this.next);
  }

  /**
   * This page and every following one, fetched one at a time. A `next` link
   * that repeats a page of this walk throws a `PaginationLoopError`.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const walk = new LinkWalk(this.cursor);
    let page: Page<T> | undefined = this;
    while (page) {
      yield page;
      if (page.next === null) break;
      walk.follow("next", page.next);
      page = await page.getNextPage();
    }
  }

  /** Every item of this page and the following ones. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    // A loop rather than `yield* page.results`, which wraps each item in an async-from-sync step.
    for await (const page of this.pages()) for (const item of page.results) yield item;
  }
}

/** The key of the type-only mark naming the list operation a page promise answers. */
declare const listOperation: unique symbol;

/**
 * What `list()` returns: await it for the first page, or iterate it for every
 * item of every page. Nothing is fetched until it is awaited or iterated.
 */
export class PagePromise<T, Op extends string = string>
  implements PromiseLike<Page<T>>, AsyncIterable<T>
{
  /** Type-only: which list operation this answers (see `APIPromise`). */
  declare readonly [listOperation]?: Op;
  readonly #load: () => Promise<WithResponse<Page<T>>>;
  #first: Promise<WithResponse<Page<T>>> | undefined;

  /** @internal Made by `list()`. */
  constructor(load: () => Promise<WithResponse<Page<T>>>) {
    this.#load = load;
  }

  #firstResponse(): Promise<WithResponse<Page<T>>> {
    this.#first ??= this.#load();
    return this.#first;
  }

  #firstPage(): Promise<Page<T>> {
    return this.#firstResponse().then((r) => r.data);
  }

  /**
   * The first page together with the raw `Response` and its request id.
   *
   * @example
   * const { data: page, requestId } = await mr.cases.list().withResponse();
   */
  withResponse(): Promise<WithResponse<Page<T>>> {
    return this.#firstResponse();
  }

  /**
   * At most `limit` items, in the list's order: pages are fetched one at a
   * time only while fewer are collected, and the last one is cut. `limit` is
   * required (1 to 10 000); walk longer lists with `for await`.
   *
   * @example
   * const cases = await mr.cases.list().toArray({ limit: 500 });
   */
  async toArray(options: ToArrayOptions): Promise<T[]> {
    const limit = (options as Partial<ToArrayOptions> | undefined)?.limit;
    if (limit === undefined) {
      throw new TypeError(
        "toArray() needs a `limit`, e.g. `toArray({ limit: 500 })`: a list can be longer than memory allows. Use `for await` to walk every item.",
      );
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > TO_ARRAY_LIMIT_MAX) {
      throw new RangeError(
        `toArray({ limit }) takes an integer from 1 to ${TO_ARRAY_LIMIT_MAX}; use \`for await\` to walk longer lists.`,
      );
    }
    const items: T[] = [];
    for await (const page of this.pages()) {
      for (const item of page.results) {
        items.push(item);
        // Before the next page is asked for: nothing beyond `limit` is fetched.
        if (items.length === limit) return items;
      }
    }
    return items;
  }

  // biome-ignore lint/suspicious/noThenProperty: an awaitable by design, as in openai-node.
  then<A = Page<T>, B = never>(
    onfulfilled?: ((value: Page<T>) => A | PromiseLike<A>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#then.
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  /** As `Promise#catch`, for the first page. */
  catch<B = never>(
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#catch.
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<Page<T> | B> {
    return this.then(undefined, onrejected);
  }

  /** As `Promise#finally`, for the first page. */
  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.then().finally(onfinally);
  }

  /** Every page, fetched one at a time. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    yield* (await this.#firstPage()).pages();
  }

  /** Every item of every page, fetched one page at a time: `for await (const item of mr.cases.list())`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    // One generator between the caller and the items, not a second one delegating to the page's.
    const first = await this.#firstPage();
    for await (const page of first.pages()) for (const item of page.results) yield item;
  }
}

/** The item type of a list operation: what its envelope's `results` hold. */
export type ItemOf<O extends Operation> =
  ResponseOf<O> extends { results: (infer T)[] } ? T : never;

/**
 * Starts a call of the list operation `op` over `core`; each page is one GET,
 * parsed with the operation's list envelope.
 */
export function paginate<O extends Operation & { readonly list: true }>(
  core: Core,
  op: O,
  input: Pick<CallInput<O>, "params" | "query">,
  options?: RequestOptions,
): PagePromise<ItemOf<O>, O["operationId"]> {
  type T = ItemOf<O>;
  const fetchPage = async (url: string | undefined): Promise<WithResponse<Page<T>>> => {
    const { data, response, requestId } = await core
      .call(op, url === undefined ? input : { url }, options)
      .withResponse();
    const envelope = data as { results: T[]; next: string | null; previous: string | null };
    const query = input.query as { cursor?: string | null } | undefined;
    const cursor = url === undefined ? (query?.cursor ?? null) : cursorOf(url);
    const follow = (next: string) => fetchPage(next).then((r) => r.data);
    return { data: new Page<T>(envelope, cursor, follow, requestId), response, requestId };
  };
  return new PagePromise<T, O["operationId"]>(() => fetchPage(undefined));
}

/**
 * The links one walk of a list has followed, per direction: following a
 * `next` (or a `previous`) link whose cursor was already followed that way
 * (or fetched first) throws a `PaginationLoopError`, since the walk would
 * never end. Going back by `previous` over pages reached by `next` is not a
 * repeat. Shared by `pages()` and the catch-up poller's runs.
 */
export class LinkWalk {
  readonly #seen = { next: new Set<string>(), previous: new Set<string>() };
  readonly #what: string;

  /** `start` is the cursor of the first page, when it was fetched with one. */
  constructor(start: string | null = null, what = "list") {
    this.#what = what;
    if (start !== null) {
      this.#seen.next.add(start);
      this.#seen.previous.add(start);
    }
  }

  /** Records that `link` is about to be followed as `direction`; throws when that repeats. */
  follow(direction: "next" | "previous", link: string): void {
    const key = cursorOf(link) ?? link;
    const seen = this.#seen[direction];
    if (seen.has(key)) throw new PaginationLoopError(direction, this.#what);
    seen.add(key);
  }
}

function cursorOf(link: string | null): string | null {
  return link !== null && URL.canParse(link) ? new URL(link).searchParams.get("cursor") : null;
}

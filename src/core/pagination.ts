import type { Operation } from "../contract/operation.js";
import type { RequestOptions } from "./options.js";
import type { CallInput, Core, ResponseOf } from "./request.js";

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
  readonly #fetchUrl: (url: string) => Promise<Page<T>>;

  constructor(
    envelope: { results: T[]; next: string | null; previous: string | null },
    cursor: string | null,
    fetchUrl: (url: string) => Promise<Page<T>>,
  ) {
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

  /** This page and every following one, fetched one at a time. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page: Page<T> | undefined = this;
    while (page) {
      yield page;
      page = page.hasNextPage() ? await page.getNextPage() : undefined;
    }
  }

  /** Every item of this page and the following ones. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    // A loop rather than `yield* page.results`, which wraps each item in an async-from-sync step.
    for await (const page of this.pages()) for (const item of page.results) yield item;
  }
}

/**
 * What `list()` returns: await it for the first page, or iterate it for every
 * item of every page. Nothing is fetched until it is awaited or iterated.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #load: () => Promise<Page<T>>;
  #first: Promise<Page<T>> | undefined;

  constructor(load: () => Promise<Page<T>>) {
    this.#load = load;
  }

  #firstPage(): Promise<Page<T>> {
    this.#first ??= this.#load();
    return this.#first;
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
): PagePromise<ItemOf<O>> {
  type T = ItemOf<O>;
  const fetchPage = async (url: string | undefined): Promise<Page<T>> => {
    const envelope = (await core.call(op, url === undefined ? input : { url }, options)) as {
      results: T[];
      next: string | null;
      previous: string | null;
    };
    const query = input.query as { cursor?: string | null } | undefined;
    const cursor = url === undefined ? (query?.cursor ?? null) : cursorOf(url);
    return new Page<T>(envelope, cursor, fetchPage);
  };
  return new PagePromise<T>(() => fetchPage(undefined));
}

function cursorOf(link: string | null): string | null {
  return link !== null && URL.canParse(link) ? new URL(link).searchParams.get("cursor") : null;
}

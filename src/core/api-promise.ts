/** The body of a response together with the response itself. */
export interface WithResponse<T> {
  /** The parsed body: what awaiting the call gives. */
  data: T;
  /** The raw response; its body has been read already. */
  response: Response;
  /** `X-Request-Id` of the response. */
  requestId: string | undefined;
}

/** The key of the type-only mark naming the operation a promise answers (never set at run time). */
declare const operation: unique symbol;

/**
 * What every resource method returns: awaiting it gives the parsed body;
 * `.withResponse()` also gives the raw `Response` and its request id.
 * `Op` is the operationId of the call it answers (`"getCase"`): a resource
 * method names it in its return type, so that calling another operation
 * there fails to compile, and the client's operation-to-method join is
 * derived from it (src/client-methods.ts).
 */
export class APIPromise<T, Op extends string = string> implements PromiseLike<T> {
  /** Type-only: which operation this answers. */
  declare readonly [operation]?: Op;
  readonly #inner: Promise<WithResponse<T>>;

  constructor(inner: Promise<WithResponse<T>>) {
    this.#inner = inner;
  }

  /**
   * The parsed body together with the raw `Response` and its request id.
   *
   * @example
   * const { data, requestId } = await mr.cases.retrieve(id).withResponse();
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.#inner;
  }

  // biome-ignore lint/suspicious/noThenProperty: an awaitable by design, as in openai-node.
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#then.
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    // One step, not `.then((r) => r.data).then(...)`: `onrejected` still sees only the call's failure.
    return this.#inner.then(
      onfulfilled == null ? (r) => r.data as unknown as A : (r) => onfulfilled(r.data),
      onrejected,
    );
  }

  /** As `Promise#catch`: the call's error, typically a {@link MedRecordsError}, goes to `onrejected`. */
  // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#catch.
  catch<B = never>(onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  /** As `Promise#finally`. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }
}

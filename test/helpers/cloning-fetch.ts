/**
 * A `fetch` that keeps an unread clone of every response, as MSW 2 does for
 * what it passes through and as logging or tracing wrappers do: the body
 * handed back is then one branch of a tee, whose `cancel()` settles only once
 * the clone is cancelled too (never, here).
 */
export function cloningFetch(): { fetch: typeof fetch; copies: Response[] } {
  const copies: Response[] = [];
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    copies.push(response.clone());
    return response;
  };
  return { fetch: wrapped as typeof fetch, copies };
}

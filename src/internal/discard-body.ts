/**
 * Lets go of a response body nobody will read, without waiting for it.
 *
 * Why not `await response.body.cancel()`: if anyone cloned the response (MSW 2
 * clones every response it passes through; so do logging and tracing `fetch`
 * wrappers), the body is one branch of a tee, and cancelling one branch
 * settles only once every branch is cancelled, which may be never. The
 * connection is released either way; only the wait is dropped.
 */
export function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

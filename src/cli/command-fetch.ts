import { transportFor } from "../core/transport.js";
import { CommandError } from "./usage-error.js";

/**
 * The `fetch` a command's API calls go through: the client's own transport
 * (the environment's proxy used, or refused with what to do; never
 * bypassed), unless a test gave its own. `baseUrl`: the service's address,
 * which a Node that cannot use the proxy may still reach when the variables
 * send its host direct.
 */
export function commandFetch(given: typeof fetch | undefined, baseUrl: string): typeof fetch {
  if (given !== undefined) return given;
  try {
    return transportFor({ baseUrl }).fetch;
  } catch (error) {
    throw new CommandError(error instanceof Error ? error.message : String(error));
  }
}

/** `fetch` whose requests the signal aborts too, so that Ctrl-C never waits for a hung request. */
export function abortableFetch(base: typeof fetch, signal: AbortSignal): typeof fetch {
  return (input, init) => {
    const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    return base(input, { ...init, signal: own ? AbortSignal.any([own, signal]) : signal });
  };
}

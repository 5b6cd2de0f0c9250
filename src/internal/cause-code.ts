/**
 * The nearest string `code` along an error's `cause` chain, e.g.
 * `ECONNREFUSED` under fetch's "fetch failed" TypeError. Bounded, so a
 * cyclic chain cannot loop.
 */
export function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

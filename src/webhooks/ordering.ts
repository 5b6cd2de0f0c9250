/**
 * Deliveries can arrive out of order and more than once (spec, Delivery rule
 * 7): a receiver fetches the retrieval request and keeps it only when its
 * `public_updated_at` is later than the cached copy's.
 */

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** An instant as whole epoch seconds plus the fraction's digits, so sub-millisecond precision survives. */
interface Instant {
  seconds: number;
  fraction: string;
}

function parseInstant(value: string, label: string): Instant {
  const m = ISO_DATE_TIME.exec(value);
  if (m) {
    const [, y, mo, d, h, mi, s, frac = "", z, sign, oh, om] = m;
    const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    const offsetMinutes = z ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
    return { seconds: local / 1000 - offsetMinutes * 60, fraction: frac.replace(/0+$/, "") };
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new TypeError(`isNewerRetrievalRequest: ${label}.public_updated_at is not a date-time`);
  }
  const seconds = Math.floor(ms / 1000);
  return {
    seconds,
    fraction: String(ms - seconds * 1000)
      .padStart(3, "0")
      .replace(/0+$/, ""),
  };
}

function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, "0");
  const fb = b.fraction.padEnd(width, "0");
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

/**
 * Whether a freshly fetched retrieval request is a later version than the
 * cached one, comparing `public_updated_at` as instants: offsets are taken
 * into account and digits beyond milliseconds are kept. True when nothing is
 * cached; false when both are the same instant (nothing new to store).
 *
 * @example
 * const fetched = await mr.retrievalRequests.retrieve(event.data.retrieval_request_id);
 * if (isNewerRetrievalRequest(fetched, await cache.get(fetched.id))) await cache.set(fetched.id, fetched);
 * @throws {TypeError} when a `public_updated_at` is not a date-time.
 */
export function isNewerRetrievalRequest(
  fetched: { public_updated_at: string },
  cached: { public_updated_at: string } | undefined | null,
): boolean {
  const next = parseInstant(fetched.public_updated_at, "fetched");
  if (cached === undefined || cached === null) return true;
  return compareInstants(next, parseInstant(cached.public_updated_at, "cached")) > 0;
}

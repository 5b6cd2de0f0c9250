import {
  checkLeaseSeconds,
  DEFAULT_DEDUPE_TTL_SECONDS,
  type DedupeStore,
  newLeaseToken,
} from "../shared/dedupe-store.js";

/** Options of `memoryDedupeStore(options)`. */
export interface MemoryDedupeStoreOptions {
  /**
   * How long a claim's in-progress lease lasts, in seconds; past it, a claim
   * of the id takes the lease over.
   * @default 60
   */
  leaseSeconds?: number;
  /**
   * Most ids kept; past it the least recently seen is forgotten first. Each
   * costs roughly the id's length plus 150 bytes.
   * @default 10_000
   */
  max?: number;
  /**
   * Longest time a done id is kept, in seconds, whatever TTL `complete` asks
   * for. The service retries an event for about 2.6 hours; a redelivery or the
   * catch-up poller can bring it back later.
   * @default DEFAULT_DEDUPE_TTL_SECONDS (a week)
   */
  ttlSeconds?: number;
  /**
   * Clock in epoch milliseconds; for tests.
   * @default Date.now
   * @example () => clock.now()
   */
  now?: () => number;
}

type MemoryEntry = { expiresAt: number; token: string | null };

/**
 * A per-process {@link DedupeStore}: least recently used eviction bounded by
 * `max`, plus expiry of leases and done ids. Ids are lost on restart, and each
 * instance of a scaled-out receiver has its own: use a shared store there.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const max = options.max ?? 10_000;
  const maxTtlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
  const leaseSeconds = checkLeaseSeconds(options.leaseSeconds, "memoryDedupeStore");
  const now = options.now ?? Date.now;
  if (!Number.isInteger(max) || max < 1) {
    throw new TypeError("memoryDedupeStore: `max` must be an integer >= 1");
  }
  if (!(maxTtlSeconds > 0)) {
    throw new TypeError("memoryDedupeStore: `ttlSeconds` must be a number > 0");
  }

  // Map iteration order is insertion order; re-inserting on access turns it
  // into least-recently-used order, so the first key is the one to evict.
  // `token` is the lease's while in progress, null once done.
  const entries = new Map<string, MemoryEntry>();

  const put = (id: string, entry: MemoryEntry, at: number) => {
    entries.delete(id);
    entries.set(id, entry);
    for (const [key, { expiresAt }] of entries) {
      if (expiresAt > at) break;
      entries.delete(key);
    }
    while (entries.size > max) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  };

  return {
    async claim(id) {
      const at = now();
      const entry = entries.get(id);
      if (entry !== undefined && entry.expiresAt > at) {
        put(id, entry, at);
        return entry.token === null ? { state: "done" } : { state: "in_progress" };
      }
      const token = newLeaseToken();
      put(id, { expiresAt: at + leaseSeconds * 1000, token }, at);
      return { state: "claimed", token };
    },
    async complete(id, _token, ttlSeconds) {
      // Done whoever holds the lease now: the event was processed.
      const at = now();
      const ttl = Math.min(ttlSeconds > 0 ? ttlSeconds : maxTtlSeconds, maxTtlSeconds);
      put(id, { expiresAt: at + ttl * 1000, token: null }, at);
    },
    async release(id, token) {
      if (entries.get(id)?.token === token) entries.delete(id);
    },
  };
}

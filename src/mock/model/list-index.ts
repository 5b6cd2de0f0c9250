/**
 * A resource's list, kept in key order as it changes, so that a page costs
 * a binary search and the page (`paginateSorted`) rather than a sort of
 * everything the mock holds: a suite that seeds 100 000 cases pays nothing
 * for them per call.
 *
 * Each item is in the whole list and in the buckets its values name (a
 * filter that needs its own index: `case:<id>`, `status:<status>`...). A list
 * reads the narrowest bucket its filters allow and still checks every filter
 * on the items it reads, so any combination of filters is right; a bucket
 * only makes it fast.
 *
 * The index hangs off the resource's own `Map` (a WeakMap, never part of the
 * state): `reset()` and `restore()` bring new maps, whose index is built on
 * the first list. The model module reports each change (`added`, `changed`,
 * `deleted`); an item count that differs from the map's (a change made past
 * it) rebuilds it.
 */

/** How a resource's items are ordered and bucketed. */
export interface ListIndexOptions<T> {
  /** The sort key, unique per item; lists show the greatest first. */
  keyOf: (item: T) => number;
  /** The buckets the item belongs to now, besides the whole list. */
  bucketsOf?: (item: T) => readonly string[];
}

interface Placement {
  key: number;
  buckets: readonly string[];
}

/** One resource's ordered list and buckets, ascending by key. */
export class ListIndex<T> {
  readonly #options: ListIndexOptions<T>;
  readonly #all: T[] = [];
  readonly #buckets = new Map<string, T[]>();
  /** Where each item was filed: its key and buckets then, to find it again after it changed. */
  readonly #placed = new Map<T, Placement>();

  constructor(options: ListIndexOptions<T>, items: Iterable<T>) {
    this.#options = options;
    const keyOf = options.keyOf;
    for (const item of items) this.#all.push(item);
    this.#all.sort((a, b) => keyOf(a) - keyOf(b));
    for (const item of this.#all) {
      const placement = this.#placement(item);
      this.#placed.set(item, placement);
      for (const bucket of placement.buckets) this.#bucket(bucket).push(item);
    }
  }

  get size(): number {
    return this.#all.length;
  }

  /** The whole list, or one bucket, ascending by key (empty for a bucket nothing is in). */
  list(bucket?: string): readonly T[] {
    if (bucket === undefined) return this.#all;
    return this.#buckets.get(bucket) ?? [];
  }

  add(item: T): void {
    if (this.#placed.has(item)) return;
    const placement = this.#placement(item);
    this.#placed.set(item, placement);
    insert(this.#all, item, placement.key, this.#options.keyOf);
    for (const bucket of placement.buckets) {
      insert(this.#bucket(bucket), item, placement.key, this.#options.keyOf);
    }
  }

  delete(item: T): void {
    const placement = this.#placed.get(item);
    if (placement === undefined) return;
    this.#placed.delete(item);
    remove(this.#all, item, placement.key, this.#options.keyOf);
    for (const bucket of placement.buckets) this.#removeFrom(bucket, item, placement.key);
  }

  /** Refiles an item whose key or bucketed values changed. */
  changed(item: T): void {
    const before = this.#placed.get(item);
    if (before === undefined) {
      this.add(item);
      return;
    }
    const after = this.#placement(item);
    const { keyOf } = this.#options;
    if (after.key === before.key) {
      if (sameBuckets(before.buckets, after.buckets)) return;
      for (const bucket of before.buckets) {
        if (!after.buckets.includes(bucket)) this.#removeFrom(bucket, item, before.key);
      }
      for (const bucket of after.buckets) {
        if (!before.buckets.includes(bucket)) insert(this.#bucket(bucket), item, after.key, keyOf);
      }
    } else {
      remove(this.#all, item, before.key, keyOf);
      for (const bucket of before.buckets) this.#removeFrom(bucket, item, before.key);
      insert(this.#all, item, after.key, keyOf);
      for (const bucket of after.buckets) insert(this.#bucket(bucket), item, after.key, keyOf);
    }
    this.#placed.set(item, after);
  }

  #placement(item: T): Placement {
    return { key: this.#options.keyOf(item), buckets: this.#options.bucketsOf?.(item) ?? [] };
  }

  #bucket(name: string): T[] {
    let bucket = this.#buckets.get(name);
    if (bucket === undefined) {
      bucket = [];
      this.#buckets.set(name, bucket);
    }
    return bucket;
  }

  #removeFrom(name: string, item: T, key: number): void {
    const bucket = this.#buckets.get(name);
    if (bucket === undefined) return;
    remove(bucket, item, key, this.#options.keyOf);
    // A bucket per value (an external id, a case) must not outlive its last item.
    if (bucket.length === 0) this.#buckets.delete(name);
  }
}

/**
 * The indexes of one resource, one per map it lives in (a fresh state has
 * fresh maps). The model module holds one of these per resource.
 */
export class MapListIndex<T> {
  readonly #options: ListIndexOptions<T>;
  readonly #indexes = new WeakMap<ReadonlyMap<string, T>, ListIndex<T>>();

  constructor(options: ListIndexOptions<T>) {
    this.#options = options;
  }

  /** The index of `map`, built on first use (or again if the map changed past it). */
  of(map: ReadonlyMap<string, T>): ListIndex<T> {
    let index = this.#indexes.get(map);
    if (index === undefined || index.size !== map.size) {
      index = new ListIndex(this.#options, map.values());
      this.#indexes.set(map, index);
    }
    return index;
  }

  /** After `map.set(id, item)` of a new item. */
  added(map: ReadonlyMap<string, T>, item: T): void {
    this.#indexes.get(map)?.add(item);
  }

  /** After a change to an item's key or to a value a bucket is named after. */
  changed(map: ReadonlyMap<string, T>, item: T): void {
    this.#indexes.get(map)?.changed(item);
  }

  /** After `map.delete(id)`. */
  deleted(map: ReadonlyMap<string, T>, item: T): void {
    this.#indexes.get(map)?.delete(item);
  }
}

/** The first index of `list` whose key is `key` or greater. */
function lowerBound<T>(list: readonly T[], key: number, keyOf: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(list[mid] as T) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insert<T>(list: T[], item: T, key: number, keyOf: (item: T) => number): void {
  // New items usually carry the greatest key: a push.
  const last = list[list.length - 1];
  if (last === undefined || keyOf(last) < key) list.push(item);
  else list.splice(lowerBound(list, key, keyOf), 0, item);
}

function remove<T>(list: T[], item: T, key: number, keyOf: (item: T) => number): void {
  // The item's key as filed may no longer be its key: compare the filed one by position.
  for (let i = lowerBound(list, key, (x) => (x === item ? key : keyOf(x))); i < list.length; i++) {
    if (list[i] === item) {
      list.splice(i, 1);
      return;
    }
  }
}

function sameBuckets(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((bucket, i) => bucket === b[i]);
}

/**
 * A Map with a size bound that forgets its least recently used entry when full. Every cache and
 * per-client table of the service is one of these: anything keyed by what callers send (a filter
 * shape, a client address, an API key) would otherwise grow with the number of distinct values a
 * caller can invent (one tenant grew the server from 96 MB to 2.2 GB).
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error(`BoundedMap needs a positive size, got ${maxEntries}; this is a bug in vigil`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order, so re-inserting moves the entry to the recent end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Entries from least to most recently used. */
  entries(): IterableIterator<[K, V]> {
    return this.#entries.entries();
  }
}

/**
 * SQLite for tests: in-memory stores, each closed after the test that opened it.
 */
import { afterEach } from 'vitest';
import { Store } from './store.js';

type StoreOptions = ConstructorParameters<typeof Store>[1];

/**
 * Call at the top of a test file (it registers the file's afterEach); the function opens a store,
 * with the constructor's options (e.g. migrated only `through` an older step).
 */
export function useMemoryStores(): (options?: StoreOptions) => Store {
  const stores: Store[] = [];
  afterEach(() => stores.splice(0).forEach((store) => store.close()));
  return (options) => {
    const store = new Store(':memory:', options);
    stores.push(store);
    return store;
  };
}

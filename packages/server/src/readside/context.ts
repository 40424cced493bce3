/**
 * The read side's stores on one database. `openReadSide` is called once per opened store, by
 * `openRepositories` (../repositories.ts); everything else gets that one from it.
 */
import type { SqliteDatabase, Store } from '../store/index.js';
import { ResultsStore } from './results-store.js';
import { RollupsStore } from './rollups-store.js';

export interface ReadSide {
  readonly results: ResultsStore;
  /** The hourly and daily rollups the results store keeps (the scheduler prunes them through `CheckResults.prune`, on the same tables). */
  readonly rollups: RollupsStore;
}

export function openReadSide(db: SqliteDatabase): ReadSide {
  const rollups = new RollupsStore(db);
  return { results: new ResultsStore(db, rollups), rollups };
}

/**
 * COMPATIBILITY for metrics/ (and the agents' tests) only, until they take the read side from
 * `Repositories`: a fresh, unshared read side on every call. Fine for what they do with it (make
 * sure tables exist, read results); never write results through it, since the service's own read
 * side caches the reference results it writes against.
 */
export function readSideOf(store: Store): ReadSide {
  return openReadSide(store.db);
}

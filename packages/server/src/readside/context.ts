/**
 * The read side's stores for one service store: its tables are migrated and its statements prepared
 * once per database, however many route modules ask.
 */
import type { Store } from '../store/index.js';
import { PagesStore } from './pages-store.js';
import { ResultsStore } from './results-store.js';
import { RollupsStore } from './rollups-store.js';
import { READSIDE_MIGRATIONS, READSIDE_SCOPE } from './tables.js';

export interface ReadSide {
  readonly results: ResultsStore;
  /** The hourly and daily rollups the results store keeps; pruned by the scheduler. */
  readonly rollups: RollupsStore;
  readonly pages: PagesStore;
}

const readSides = new WeakMap<Store, ReadSide>();

export function readSideOf(store: Store): ReadSide {
  let readSide = readSides.get(store);
  if (!readSide) {
    store.migrate(READSIDE_SCOPE, READSIDE_MIGRATIONS);
    const rollups = new RollupsStore(store.db);
    readSide = { results: new ResultsStore(store.db, rollups), rollups, pages: new PagesStore(store.db) };
    readSides.set(store, readSide);
  }
  return readSide;
}

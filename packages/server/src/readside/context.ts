/**
 * The read side's stores for one service store: its statements are prepared once per database,
 * however many route modules ask.
 */
import type { Store } from '../store/index.js';
import { PagesStore } from './pages-store.js';
import { ResultsStore } from './results-store.js';
import { RollupsStore } from './rollups-store.js';

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
    const rollups = new RollupsStore(store.db);
    readSide = { results: new ResultsStore(store.db, rollups), rollups, pages: new PagesStore(store.db) };
    readSides.set(store, readSide);
  }
  return readSide;
}

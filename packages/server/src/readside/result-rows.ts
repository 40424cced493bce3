/**
 * The compact rows results are stored as: their format is the store's (store/formats/result-row-codec.ts,
 * shared by every engine) and SQLite's writer is store/sqlite/result-rows.ts; the read side uses them from there.
 */
export { columnKey, idOfRow, locationOfRow, REFERENCE_CACHE_ENTRIES, REFERENCE_ROWS, type DocRow, type Locations, type RowKey } from '../store/formats/result-row-codec.js';
export type { FactTuple } from '../store/sqlite/check-results.js';
export { ResultRows } from '../store/sqlite/result-rows.js';

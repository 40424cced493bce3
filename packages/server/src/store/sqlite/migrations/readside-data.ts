/**
 * The read side's row encoders that steps 14 and 15 carry stored results over with. A step that
 * rewrites data in the read side's format needs that format's code; this file is the one place the
 * migrations reach above the store (layers.test.ts names it).
 */
export { backfillRollups } from '../../../readside/rollups-store.js';
export { compactResultRow, type StoredResult } from '../../../readside/results-store.js';

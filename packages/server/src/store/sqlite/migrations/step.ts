import type { SqliteDatabase } from '../../database.js';

/** Where a step was recorded before the one list: its module's scope and number in that scope. */
export interface LegacyStep {
  readonly scope: string;
  readonly version: number;
}

/**
 * One numbered step of the SQLite schema. Never edit or renumber a step once committed (a database
 * made by an older vigil has run it): append one.
 */
export interface SqliteStep {
  readonly step: number;
  readonly name: string;
  /**
   * Set on the steps that existed when each module numbered its own steps (`migrations` rows with
   * that scope and version): a database that recorded them has run this step.
   */
  readonly was?: LegacyStep;
  readonly up: (db: SqliteDatabase) => void;
}

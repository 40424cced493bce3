/**
 * Step 41: `check_results` becomes a WITHOUT ROWID table keyed by (series, created_ms, id), in place of
 * a rowid table with an index on (series, created_ms).
 *
 * Why (the disk-growth bench suite measures it): every read of results is a check's rows over a time
 * range, which the index found and the table then held a second time, ordered by rowid. Keyed by the
 * index's own order, a result is stored once: its row, about 70 bytes, no longer pays a rowid and an
 * index entry of some 20 bytes. A check's rows are appended at the end of its range, which SQLite's
 * b-tree keeps nearly as full as the rowid table's pages (about 87 → 70 bytes a result on the bench's
 * 1,000 checks). The key is unique as the ids already were: a derived id is its check's time and
 * discriminator, and any other id is unique per check (the partial index of those ids, made again).
 * Rows have no rowid any more: pruning deletes by key (store/sqlite/result-pruning.ts), and
 * `migrate-data` pages the table by key.
 */
import type { SqliteStep } from './step.js';

export const RESULT_STEPS: readonly SqliteStep[] = [
  {
    step: 41,
    name: 'check results keyed by check, time and id, without rowid',
    up: (db) => {
      db.exec(`
        CREATE TABLE check_results_keyed (
          series INTEGER NOT NULL,
          created_ms INTEGER NOT NULL,
          id NOT NULL,
          final INTEGER NOT NULL,
          has_failures INTEGER NOT NULL,
          run_location TEXT NOT NULL,
          attempts INTEGER NOT NULL,
          response_time REAL,
          status_code INTEGER,
          phases TEXT,
          encoding INTEGER NOT NULL,
          body BLOB NOT NULL,
          ref INTEGER,
          PRIMARY KEY (series, created_ms, id)
        ) WITHOUT ROWID;
        INSERT INTO check_results_keyed (series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body, ref)
          SELECT series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body, ref
          FROM check_results ORDER BY series, created_ms, id;
        DROP TABLE check_results;
        ALTER TABLE check_results_keyed RENAME TO check_results;
        CREATE UNIQUE INDEX check_results_explicit_id ON check_results (series, id) WHERE typeof(id) <> 'integer';
        -- As step 17 made it: a deleted row gives its reference's use back, and a replaced reference
        -- goes with its last row.
        CREATE TRIGGER check_results_release_reference AFTER DELETE ON check_results WHEN old.ref IS NOT NULL BEGIN
          UPDATE check_results_references SET uses = uses - 1 WHERE key = old.ref;
          DELETE FROM check_results_references WHERE key = old.ref AND uses <= 0 AND current = 0;
        END;
      `);
    },
  },
];

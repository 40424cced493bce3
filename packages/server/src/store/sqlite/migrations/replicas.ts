/**
 * Step 31 on: what the storage ports (../../ports.ts) need so that replicas sharing a database act
 * as one service. Step 31 versions each check's alert state, so a transition is a compare-and-set.
 * Rows stored before it start at version 1, the version of a state stored once.
 */
import type { SqliteStep } from './step.js';

export const REPLICA_STEPS: readonly SqliteStep[] = [
  {
    step: 31,
    name: 'alert states are versioned',
    up: (db) => {
      db.exec('ALTER TABLE alert_states ADD COLUMN version INTEGER NOT NULL DEFAULT 1');
    },
  },
];

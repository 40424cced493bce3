/**
 * Step 29: state locks expire unless their holder renews them, so a lock left by a vigil that was
 * killed on another machine can be told from one whose apply is still running. `expires_ms` is when
 * the lock lapses; NULL for a lock taken before this step (it lapses its default TTL after it was taken).
 */
import type { SqliteStep } from './step.js';

export const STATE_LOCK_STEPS: readonly SqliteStep[] = [
  {
    step: 29,
    name: 'state locks expire unless renewed',
    up: (db) => {
      db.exec('ALTER TABLE state_locks ADD COLUMN expires_ms INTEGER');
    },
  },
];

/**
 * The service's own identity in its database.
 */
import type { SqliteDatabase } from '../database.js';

/** The id this database gave itself when it was created (step 25). */
export function serviceIdOf(db: SqliteDatabase): string {
  return (db.prepare('SELECT id FROM service_identity').get() as { id: string }).id;
}

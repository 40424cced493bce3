/**
 * Whether an error is SQLite's refusal of a write in a transaction that read a snapshot another
 * connection has since written past (WAL mode, SQLITE_BUSY_SNAPSHOT). It is answered at once, without
 * waiting, and the whole transaction must start again: a unit of work that read before its first
 * write gets it when another process (or another `Store` on the file) committed in between.
 */
export function isStaleSqliteSnapshot(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY_SNAPSHOT';
}

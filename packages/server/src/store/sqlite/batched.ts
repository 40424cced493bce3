import type { SqliteDatabase } from '../database.js';

/**
 * What the SQLite engine of the ports needs of the store (`Store` is one): its connection and its
 * group commit.
 */
export interface BatchedSqlite {
  readonly db: SqliteDatabase;
  writeBatched<T>(work: () => T): { result: T; committed: Promise<void> };
  /** Settles once another connection of this process to the file has committed what it has open; undefined when none has. */
  otherConnectionWriting?(): Promise<void> | undefined;
}

/**
 * Runs `work` in a transaction and resolves to its result once that has committed. While the store
 * has a group commit open (API writes of this event-loop turn), `work` joins it and waits for its
 * commit, since a statement on that connection lands in that transaction anyway. Otherwise `work`
 * commits on its own at once: holding SQLite's write lock until the next turn would stall every
 * other connection to the file for that long (and one in the same process until its busy timeout).
 */
export async function committed<T>(store: BatchedSqlite, work: () => T): Promise<T> {
  // Another connection of this process to the file with a transaction open (a unit awaiting its
  // ports lets this run between its statements): a transaction of its own here would busy-wait for
  // that one's write lock on the thread that must release it. It waits for that commit instead.
  if (!store.db.inTransaction) {
    for (let other = store.otherConnectionWriting?.(); other; other = store.otherConnectionWriting?.()) await other;
  }
  if (!store.db.inTransaction) return store.db.transaction(work)();
  const { result, committed: done } = store.writeBatched(work);
  await done;
  return result;
}

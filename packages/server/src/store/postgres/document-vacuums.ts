/**
 * VACUUMs of the documents' tables after bulk inserts, started by this replica in the background.
 *
 * A page read counts every matching row (the list's total) and skips the offset's rows; an index can
 * answer both without reading the table only for pages VACUUM has marked visible to all. Right after
 * a bulk insert none of the new pages is, so each read fetched every new row from the table: 10,000
 * checks just created cost a page read of them 2,400 to 4,400 buffers, against 340 to 380 once
 * vacuumed. Autovacuum gets there too, but only at its next round (a minute apart by default), so the
 * reads of that minute paid for it. On a table only inserted into, VACUUM reads the pages added since the last one and
 * little else; it does not block reads or writes (it takes no lock they conflict with).
 */
import { sql, type Kysely } from 'kysely';
import type { DocumentKind } from '../document-ports.js';
import type { PostgresSchema } from './database.js';

/** Rows this replica adds to a kind's table between two VACUUMs of it (autovacuum's own insert threshold). */
export const VACUUM_EVERY_INSERTS = 1_000;
/**
 * A page read of the kind starts one once this many were added since the last, so the last rows of a
 * bulk insert do not wait for the next thousand, nor for autovacuum.
 */
export const VACUUM_ON_READ_INSERTS = 100;

/** One per replica's pool, shared by its documents ports (the pool's and every unit's). */
export class DocumentVacuums {
  readonly #pool: Kysely<PostgresSchema>;
  readonly #inserted = new Map<DocumentKind, number>();
  readonly #running = new Map<DocumentKind, Promise<void>>();
  #stopped = false;

  /** `pool`: not a transaction, in which VACUUM cannot run. */
  constructor(pool: Kysely<PostgresSchema>) {
    this.#pool = pool;
  }

  /** A row was added to `kind`'s table (or will be, when its unit commits). */
  inserted(kind: DocumentKind): void {
    const count = (this.#inserted.get(kind) ?? 0) + 1;
    this.#inserted.set(kind, count);
    if (count >= VACUUM_EVERY_INSERTS) this.#start(kind);
  }

  /** A page of `kind` is being read. */
  reading(kind: DocumentKind): void {
    if ((this.#inserted.get(kind) ?? 0) >= VACUUM_ON_READ_INSERTS) this.#start(kind);
  }

  /** Resolves once the VACUUMs running now have ended (for tests; closing the pool waits for them too). */
  async settled(): Promise<void> {
    await Promise.all(this.#running.values());
  }

  #start(kind: DocumentKind): void {
    if (this.#stopped || this.#running.has(kind)) return;
    // Rows whose unit has not committed yet are left for the next one.
    this.#inserted.set(kind, 0);
    const vacuum = sql`VACUUM ${sql.table(kind)}`
      .execute(this.#pool)
      .then(
        () => undefined,
        // Not allowed (a role that does not own the tables), cancelled, or the pool closed: the reads
        // stay right, only slower until autovacuum's round, so this replica stops trying.
        () => {
          this.#stopped = true;
        },
      )
      .finally(() => this.#running.delete(kind));
    this.#running.set(kind, vacuum);
  }
}

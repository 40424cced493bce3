/**
 * Whether a storage engine can serve now, in the shape `GET /healthz` reports, as the ports' `health()`
 * (ports.ts) answers it: PostgreSQL answers over the network and may be away (store/postgres/health.ts);
 * SQLite runs a `SELECT 1` on its connection, which fails only once that is closed.
 */
export interface EngineHealth {
  readonly ok: boolean;
  /** Why not, naming the database (`host:port/database`, never a password). */
  readonly error?: string;
  /** ISO time since which it has been failing, by the first failed check of the current run of failures. */
  readonly since?: string;
}

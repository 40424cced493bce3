/**
 * Whether a storage engine can serve now, in the shape `GET /healthz` reports. PostgreSQL answers
 * over the network and may be away (store/postgres/health.ts); an open SQLite file always answers,
 * so its engine reports healthy without asking (the running service's `Store.health()` still runs
 * its own `SELECT 1` for /healthz).
 */
export interface EngineHealth {
  readonly ok: boolean;
  /** Why not, naming the database (`host:port/database`, never a password). */
  readonly error?: string;
  /** ISO time since which it has been failing, by the first failed check of the current run of failures. */
  readonly since?: string;
}

/** The SQLite engine's health: a local file that is open answers. */
export const SQLITE_HEALTH: () => Promise<EngineHealth> = async () => ({ ok: true });

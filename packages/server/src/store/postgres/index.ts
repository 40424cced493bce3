/**
 * The PostgreSQL engine of the storage ports: `openPostgresPorts` connects, brings the schema up to
 * date (migrations.ts; safe when replicas start at once) and returns the ports one replica uses. A
 * database that is down at start is waited for; one that goes away later fails queries with an error
 * naming it, and the pool reconnects once it is back (guarded-pool.ts).
 */
import type { StoragePorts } from '../ports.js';
import { AGENT_RUNS_CHANNEL } from './agent-leases.js';
import { waitUntilReachable } from './connect-retry.js';
import { withoutSecrets } from './connection-errors.js';
import { DEFAULT_CONNECTION_TIMEOUT_MS, openPostgres, warnerOf, type PostgresOptions } from './database.js';
import { migratePostgres } from './migrations.js';
import { PostgresNotificationListener } from './notifications-listener.js';
import { postgresPorts } from './ports.js';

export type { PostgresOptions } from './database.js';

/** The ports of the PostgreSQL engine (their `health()` asks its database: health.ts). */
export type PostgresPorts = StoragePorts;

/**
 * Waits for the database (retrying while it is away: connect-retry.ts), migrates it and returns the
 * ports. Rejects with an error naming `host:port/database` when it never came, or cannot be used.
 */
export async function openPostgresPorts(options: PostgresOptions): Promise<PostgresPorts> {
  const { db, target, health, close } = openPostgres(options);
  try {
    await waitUntilReachable(db, target, { ...options.connectRetry, warn: warnerOf(options), mask: (text) => withoutSecrets(text, options.connectionString) });
    await migratePostgres(db);
  } catch (error) {
    await close();
    throw error;
  }
  // Its own connection, opened only while a hub listens for queued runs (notifications-listener.ts).
  const agentRunsQueued = new PostgresNotificationListener({
    connectionString: options.connectionString,
    target,
    channel: AGENT_RUNS_CHANNEL,
    warn: warnerOf(options),
    connectionTimeoutMs: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
  });
  const closeAll = async () => {
    await agentRunsQueued.close();
    await close();
  };
  return postgresPorts(db, closeAll, health, agentRunsQueued);
}

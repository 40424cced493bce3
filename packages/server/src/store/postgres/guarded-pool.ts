/**
 * The pg Pool as Kysely sees it, with two guards a long-running service needs:
 *
 * - No failure of a connection ends the process. pg emits 'error' on a client whose connection
 *   broke; the Pool listens on its idle clients only, and an 'error' without a listener is thrown.
 *   A connection checked out (a transaction, pruning's session) that the server closes between two
 *   statements would otherwise crash the service: every client handed out gets a listener here.
 * - Failures say what happened: a connection that cannot be made, or broke, becomes a
 *   `PostgresUnavailableError` naming `host:port/database` (never the password), a statement
 *   timeout a `PostgresStatementTimeoutError` (connection-errors.ts).
 *
 * Reconnecting is the Pool's own: a broken client is dropped (on release it is not queryable), and
 * the next checkout opens a new connection, which succeeds once the database is back.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { reasonOf, translateError, withoutSecrets } from './connection-errors.js';

export interface GuardContext {
  readonly connectionString: string;
  /** `host:port/database`. */
  readonly target: string;
  readonly statementTimeoutMs: number;
  readonly warn: (message: string) => void;
}

export function guardedPool(pool: pg.Pool, context: GuardContext): PostgresPool {
  const guarded = new WeakSet<pg.PoolClient>();
  const translate = (error: unknown) => translateError(error, context);
  return {
    Client: (pool as unknown as { Client?: PostgresPool['Client'] }).Client,
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translate(error);
      }
      if (!guarded.has(client)) {
        guarded.add(client);
        client.on('error', (error) => {
          // While idle the Pool's own listener reports it too (see openPostgres): say it once.
          if (client.listenerCount('error') > 1) return;
          context.warn(`a PostgreSQL connection in use to ${context.target} failed: ${withoutSecrets(reasonOf(error), context.connectionString)}`);
        });
      }
      return {
        query: ((text: unknown, parameters?: readonly unknown[]) => {
          // A cursor (streaming) is handed through as it is: its reads reject with the driver's error.
          if (typeof text !== 'string') return client.query(text as pg.Submittable);
          return client.query(text, parameters as unknown[]).catch((error: unknown) => {
            throw translate(error);
          });
        }) as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
      };
    },
  };
}

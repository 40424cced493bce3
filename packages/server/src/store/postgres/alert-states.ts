/**
 * Alert states in PostgreSQL, moved by compare-and-set on their version. A transition from version n
 * is an `UPDATE … WHERE version = n` (from no state, an `INSERT … ON CONFLICT DO NOTHING`): of two
 * replicas moving the same state at once, the second waits for the first's row lock, finds the version
 * moved when it gets the row, and changes nothing. The notifications are inserted into the outbox
 * (`alert_notifications`, the NotificationOutbox's table) in the same transaction, so they exist
 * exactly when the state moved. The day's certificate-expiry claims are rows of `ssl_expiry_alerts`
 * (migrations.ts, step 17), one per check and channel. Same rules as store/sqlite/alerting.ts.
 *
 * Inside a unit of work (a run stored with its evaluation) each call is a savepoint of the unit's
 * transaction instead of a transaction of its own; a lost compare-and-set changes no row and raises
 * nothing, so the unit stays usable and reads the winner's version again (READ COMMITTED: each
 * statement sees what committed before it).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AlertStates, QueuedNotification, VersionedAlertState } from '../ports.js';
import { checkAlertStateKey, checkAlertTransition, checkSslAlertClaims } from '../port-rules.js';
import type { PostgresSchema } from './database.js';
import { insertNotifications } from './outbox.js';

export class PostgresAlertStates implements AlertStates {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async read(accountId: string, checkId: string): Promise<VersionedAlertState | undefined> {
    checkAlertStateKey(accountId, checkId);
    const row = await this.#db
      .selectFrom('alert_states')
      .select(['doc', 'version'])
      .where('account_id', '=', accountId)
      .where('check_id', '=', checkId)
      .executeTakeFirst();
    return row && { state: row.doc, version: row.version };
  }

  async transition(
    accountId: string,
    checkId: string,
    expectedVersion: number,
    nextState: string,
    notifications: readonly QueuedNotification[],
    nowMs: number,
  ): Promise<boolean> {
    checkAlertTransition(accountId, checkId, expectedVersion, nextState, notifications, nowMs);
    return atomically(this.#db, 'vigil_alert_transition', async (tx) => {
      const moved =
        expectedVersion === 0
          ? await tx
              .insertInto('alert_states')
              .values({ account_id: accountId, check_id: checkId, doc: nextState, version: 1 })
              .onConflict((conflict) => conflict.columns(['account_id', 'check_id']).doNothing())
              .returning('version')
              .executeTakeFirst()
          : await tx
              .updateTable('alert_states')
              .set({ doc: nextState, version: sql<number>`version + 1` })
              .where('account_id', '=', accountId)
              .where('check_id', '=', checkId)
              .where('version', '=', expectedVersion)
              .returning('version')
              .executeTakeFirst();
      if (moved === undefined) return false;
      await insertNotifications(tx, notifications, nowMs);
      return true;
    });
  }

  async queueDailySslAlerts(accountId: string, checkId: string, day: number, notifications: readonly QueuedNotification[], nowMs: number): Promise<string[]> {
    checkSslAlertClaims(accountId, checkId, day, notifications, nowMs);
    if (notifications.length === 0) return [];
    return atomically(this.#db, 'vigil_ssl_claims', async (tx) => {
      const queued: QueuedNotification[] = [];
      for (const notification of notifications) {
        // A replica claiming the same day at once waits for this row's lock, then finds the day
        // taken and updates nothing.
        const claimed = await sql`
          INSERT INTO ssl_expiry_alerts (account_id, check_id, alert_channel_id, day)
          VALUES (${accountId}, ${checkId}, ${notification.alertChannelId}, ${day})
          ON CONFLICT (account_id, check_id, alert_channel_id) DO UPDATE SET day = excluded.day
          WHERE ssl_expiry_alerts.day < excluded.day
          RETURNING day`.execute(tx);
        if (claimed.rows.length > 0) queued.push(notification);
      }
      await insertNotifications(tx, queued, nowMs);
      return queued.map((notification) => notification.id);
    });
  }
}

/**
 * `work` as one all-or-nothing step: a transaction of its own on the pool, a savepoint inside a unit's
 * transaction (where a failed statement would otherwise abort the whole unit).
 */
export async function atomically<T>(db: Kysely<PostgresSchema>, savepoint: string, work: (tx: Transaction<PostgresSchema>) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute(work);
  const tx = db as Transaction<PostgresSchema>;
  await sql`SAVEPOINT ${sql.id(savepoint)}`.execute(tx);
  try {
    const result = await work(tx);
    await sql`RELEASE SAVEPOINT ${sql.id(savepoint)}`.execute(tx);
    return result;
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT ${sql.id(savepoint)}`.execute(tx);
    await sql`RELEASE SAVEPOINT ${sql.id(savepoint)}`.execute(tx);
    throw error;
  }
}

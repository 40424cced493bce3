/**
 * The heartbeat monitors' SQL: monitors by ping token, their pings (`heartbeat_events`, written by
 * the read side's results store), the cursor of pings already turned into results, and the missed
 * deadlines already reported.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export interface HeartbeatCheckRow {
  readonly account_id: string;
  /** The stored check document (JSON). */
  readonly doc: string;
}

export interface HeartbeatEventRow {
  readonly rowid: number;
  readonly account_id: string;
  readonly check_id: string;
  /** The stored event (JSON). */
  readonly doc: string;
}

/** Look-ups of the ping route and of deadlines. */
export class PingTokenTable {
  readonly #byToken: Statement;
  readonly #lastPing: Statement;

  constructor(db: SqliteDatabase) {
    this.#byToken = db.prepare("SELECT account_id, doc FROM checks WHERE check_type = 'HEARTBEAT' AND json_extract(doc, '$.heartbeat.pingToken') = ?");
    this.#lastPing = db.prepare('SELECT max(at_ms) AS at FROM heartbeat_events WHERE account_id = ? AND check_id = ?');
  }

  /** The heartbeat monitor holding `token`, in any account. */
  checkOfToken(token: string): HeartbeatCheckRow | undefined {
    return this.#byToken.get(token) as HeartbeatCheckRow | undefined;
  }

  /** When the check was last pinged, or null. */
  lastPingMs(accountId: string, checkId: string): number | null {
    return (this.#lastPing.get(accountId, checkId) as { at: number | null }).at;
  }
}

/** What the heartbeat watch reads and writes on each tick. */
export class HeartbeatWatchTable {
  readonly #heartbeatChecks: Statement;
  readonly #eventsAfter: Statement;
  readonly #cursor: Statement;
  readonly #moveCursor: Statement;
  readonly #lastEvent: Statement;
  readonly #claimWindow: Statement;
  readonly #reported: Statement;
  readonly #pruneEvents: Statement;

  /** `batch`: the most events one read returns, and the most one prune statement deletes. */
  constructor(db: SqliteDatabase, batch: { pings: number; prune: number }) {
    this.#heartbeatChecks = db.prepare("SELECT account_id, doc FROM checks WHERE check_type = 'HEARTBEAT'");
    this.#eventsAfter = db.prepare(`SELECT rowid, account_id, check_id, doc FROM heartbeat_events WHERE rowid > ? ORDER BY rowid LIMIT ${batch.pings}`);
    this.#cursor = db.prepare('SELECT event_rowid FROM heartbeat_ping_cursor WHERE id = 1');
    this.#moveCursor = db.prepare('INSERT INTO heartbeat_ping_cursor (id, event_rowid) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET event_rowid = excluded.event_rowid');
    this.#lastEvent = db.prepare('SELECT coalesce(max(rowid), 0) AS last FROM heartbeat_events');
    this.#claimWindow = db.prepare(
      `INSERT INTO heartbeat_deadlines (account_id, check_id, reported_due_ms) VALUES (?, ?, ?)
       ON CONFLICT (account_id, check_id) DO UPDATE SET reported_due_ms = excluded.reported_due_ms WHERE reported_due_ms < excluded.reported_due_ms`,
    );
    this.#reported = db.prepare('SELECT account_id, check_id, reported_due_ms FROM heartbeat_deadlines');
    this.#pruneEvents = db.prepare(`DELETE FROM heartbeat_events WHERE rowid IN (SELECT rowid FROM heartbeat_events WHERE at_ms < ? AND rowid <= ? LIMIT ${batch.prune})`);
  }

  /** Every heartbeat monitor of every account. */
  heartbeatChecks(): HeartbeatCheckRow[] {
    return this.#heartbeatChecks.all() as HeartbeatCheckRow[];
  }

  /** The next events after `rowid`, in order. */
  eventsAfter(rowid: number): HeartbeatEventRow[] {
    return this.#eventsAfter.all(rowid) as HeartbeatEventRow[];
  }

  /** The last event already turned into a result; undefined before the first tick on this database. */
  cursor(): number | undefined {
    return (this.#cursor.get() as { event_rowid: number } | undefined)?.event_rowid;
  }

  moveCursor(rowid: number): void {
    this.#moveCursor.run(rowid);
  }

  /** The newest event's rowid (0 without events). */
  lastEventRowid(): number {
    return (this.#lastEvent.get() as { last: number }).last;
  }

  /** Records a missed window as reported; false when it (or a later one) already was. */
  claimWindow(accountId: string, checkId: string, dueMs: number): boolean {
    return this.#claimWindow.run(accountId, checkId, dueMs).changes > 0;
  }

  /** The last window reported per check. */
  reportedWindows(): Array<{ account_id: string; check_id: string; reported_due_ms: number }> {
    return this.#reported.all() as Array<{ account_id: string; check_id: string; reported_due_ms: number }>;
  }

  /** Deletes one batch of events older than `beforeMs` and at or below `uptoRowid`; returns how many. */
  pruneEventsBatch(beforeMs: number, uptoRowid: number): number {
    return this.#pruneEvents.run(beforeMs, uptoRowid).changes;
  }
}

/** The pings of heartbeat monitors as the read side's results store writes and lists them. */
export class HeartbeatEventTable {
  readonly #insert: Statement;
  readonly #ofCheck: Statement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare('INSERT OR IGNORE INTO heartbeat_events (account_id, id, check_id, at_ms, doc) VALUES (?, ?, ?, ?, ?)');
    this.#ofCheck = db.prepare('SELECT doc FROM heartbeat_events WHERE account_id = ? AND check_id = ? ORDER BY at_ms, id');
  }

  /** Stores a ping (JSON) unless its id is stored; returns whether it was new. */
  add(accountId: string, id: string, checkId: string, atMs: number, doc: string): boolean {
    return this.#insert.run(accountId, id, checkId, atMs, doc).changes > 0;
  }

  /** A check's pings (JSON), oldest first. */
  ofCheck(accountId: string, checkId: string): string[] {
    return (this.#ofCheck.all(accountId, checkId) as Array<{ doc: string }>).map((row) => row.doc);
  }
}

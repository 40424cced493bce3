/**
 * The heartbeat-ping port (ports.ts `HeartbeatPings`) on SQLite, over the pings themselves:
 * `heartbeat_events`, written by `HeartbeatEventTable.add` (heartbeats.ts). Step 36 gave each event `pending` (1 until its result is confirmed) and
 * a lease (`lease_owner`, `lease_until_ms`); the partial index on pending events keeps a claim's
 * look-ups to the pings not yet processed, however many processed ones are kept.
 *
 * Every call is one write transaction: SQLite takes its write lock before the claim reads, so claims
 * of replicas on one file run one after the other, and the second sees the first one's leases.
 * `heartbeat_ping_cursor` only records that monitoring started once on this database (and at which
 * event): `startOnce` is the insert into it that succeeds once.
 */
import type { Statement } from 'better-sqlite3';
import {
  checkPingClaim,
  checkPingKey,
  checkPingKeys,
  checkPingPrune,
  checkPingRange,
  checkPingToken,
  checkStoredPing,
  claimedPings,
  monitorOf,
  type ClaimedPingRow,
  type MonitorRow,
} from '../heartbeat-ping-rules.js';
import type { HeartbeatMonitor, HeartbeatPings, PingKey, PingProgress, StoredPing } from '../ports.js';
import { committed, type BatchedSqlite } from './batched.js';
import { HeartbeatEventTable } from './heartbeats.js';

/** A heartbeat check with its last ping (the events' index on check and time finds the latest at once). */
const MONITORS = `SELECT c.account_id, c.doc, (SELECT max(e.at_ms) FROM heartbeat_events AS e WHERE e.account_id = c.account_id AND e.check_id = c.id) AS last_ping_ms
  FROM checks AS c WHERE c.check_type = 'HEARTBEAT'`;

export class SqliteHeartbeatPings implements HeartbeatPings {
  readonly #store: BatchedSqlite;
  readonly #events: HeartbeatEventTable;
  readonly #markStarted: Statement;
  readonly #skipStored: Statement;
  readonly #anyClaimable: Statement;
  readonly #claim: Statement;
  readonly #confirm: Statement;
  readonly #progress: Statement;
  readonly #monitorOfToken: Statement;
  readonly #monitors: Statement;
  readonly #prune: Statement;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#events = new HeartbeatEventTable(store.db);
    // `WHERE true`: without it SQLite would read ON CONFLICT as part of the SELECT's join.
    this.#markStarted = store.db.prepare('INSERT INTO heartbeat_ping_cursor (id, event_rowid) SELECT 1, coalesce(max(rowid), 0) FROM heartbeat_events WHERE true ON CONFLICT (id) DO NOTHING');
    this.#skipStored = store.db.prepare('UPDATE heartbeat_events SET pending = 0, lease_until_ms = NULL WHERE pending = 1');
    // A read, so that a tick with nothing to claim (most of them) takes no write lock, which every other
    // process on the file would wait for. It may find a ping the claim then leaves (its check is held):
    // the claim decides.
    this.#anyClaimable = store.db.prepare(
      'SELECT EXISTS (SELECT 1 FROM heartbeat_events INDEXED BY heartbeat_events_pending WHERE pending = 1 AND (lease_until_ms IS NULL OR lease_until_ms <= ?)) AS found',
    );
    // `pending = 1` spelled out (not bound) in both places, so the partial index on pending events serves
    // them. INDEXED BY: for ORDER BY rowid the planner would rather walk the whole table in rowid order,
    // processed events and all, than sort the few pending ones.
    this.#claim = store.db.prepare(
      `UPDATE heartbeat_events SET lease_owner = @owner, lease_until_ms = @untilMs
       WHERE rowid IN (
         SELECT e.rowid FROM heartbeat_events AS e INDEXED BY heartbeat_events_pending WHERE e.pending = 1
           AND NOT EXISTS (SELECT 1 FROM heartbeat_events AS held
             WHERE held.pending = 1 AND held.account_id = e.account_id AND held.check_id = e.check_id AND held.lease_until_ms > @nowMs)
         ORDER BY e.rowid LIMIT @limit)
       RETURNING rowid AS seq, account_id, check_id, id, at_ms, doc`,
    );
    this.#confirm = store.db.prepare('UPDATE heartbeat_events SET pending = 0, lease_until_ms = NULL WHERE account_id = ? AND id = ? AND pending = 1 AND lease_owner = ?');
    this.#progress = store.db.prepare('SELECT pending, lease_owner AS owner, lease_until_ms AS leaseUntilMs FROM heartbeat_events WHERE account_id = ? AND id = ?');
    // The expression is step 19's index's, over the same partial condition, so the look-up is indexed.
    this.#monitorOfToken = store.db.prepare(`${MONITORS} AND json_extract(c.doc, '$.heartbeat.pingToken') = ?`);
    this.#monitors = store.db.prepare(`${MONITORS} ORDER BY c.seq`);
    this.#prune = store.db.prepare('DELETE FROM heartbeat_events WHERE rowid IN (SELECT rowid FROM heartbeat_events WHERE at_ms < ? AND pending = 0 LIMIT ?)');
  }

  async record(ping: StoredPing): Promise<boolean> {
    checkStoredPing(ping);
    return committed(this.#store, () => this.#events.add(ping.accountId, ping.id, ping.checkId, ping.atMs, ping.doc));
  }

  async startOnce(): Promise<boolean> {
    return committed(this.#store, () => {
      if (this.#markStarted.run().changes === 0) return false;
      this.#skipStored.run();
      return true;
    });
  }

  async claim(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<StoredPing[]> {
    checkPingClaim(owner, nowMs, leaseMs, limit);
    if ((this.#anyClaimable.get(nowMs) as { found: number }).found === 0) return [];
    const rows = await committed(this.#store, () => this.#claim.all({ owner, nowMs, untilMs: nowMs + leaseMs, limit }) as ClaimedPingRow[]);
    return claimedPings(rows);
  }

  async processed(pings: readonly PingKey[], owner: string): Promise<boolean[]> {
    checkPingKeys(pings, owner);
    if (pings.length === 0) return [];
    return committed(this.#store, () => pings.map((ping) => this.#confirm.run(ping.accountId, ping.id, owner).changes > 0));
  }

  async ofCheck(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<StoredPing[]> {
    checkPingRange(accountId, checkId, fromMs, toMs);
    return this.#events.between(accountId, checkId, fromMs, toMs).map((row) => ({ accountId, checkId, id: row.id, atMs: row.at_ms, doc: row.doc }));
  }

  async progress(accountId: string, id: string): Promise<PingProgress | undefined> {
    checkPingKey({ accountId, id });
    const row = this.#progress.get(accountId, id) as { pending: number; owner: string | null; leaseUntilMs: number | null } | undefined;
    return row && { processed: row.pending === 0, owner: row.owner, leaseUntilMs: row.leaseUntilMs };
  }

  async monitorOfToken(token: string): Promise<HeartbeatMonitor | undefined> {
    checkPingToken(token);
    const row = this.#monitorOfToken.get(token) as MonitorRow | undefined;
    return row && monitorOf(row);
  }

  async monitors(): Promise<HeartbeatMonitor[]> {
    return (this.#monitors.all() as MonitorRow[]).map(monitorOf);
  }

  async prune(beforeMs: number, limit: number): Promise<number> {
    checkPingPrune(beforeMs, limit);
    return committed(this.#store, () => this.#prune.run(beforeMs, limit).changes);
  }
}

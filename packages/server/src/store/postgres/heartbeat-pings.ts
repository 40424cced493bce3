/**
 * Heartbeat pings in PostgreSQL (`heartbeat_events`, migrations.ts step 13), by the same rules and
 * statements' shape as store/sqlite/heartbeat-pings.ts: each event is pending until its holder
 * confirms its result, and a claim leases the pending pings of checks nobody holds, in the order stored.
 *
 * "The order stored" is `seq`, an identity, and an identity is drawn when the row is inserted, not
 * when it commits: a claim that ran between two pings' commits could see the later `seq` and not the
 * earlier one, and hand out a check's newer ping first. So every insert holds one advisory lock in
 * shared mode until it commits, and a claim takes it exclusively: a claim runs when no insert is in
 * flight, and every `seq` drawn after it is greater than all it saw. Claims run one after the other
 * on the same lock, so the second sees the first one's leases; inserts never wait on each other.
 */
import { sql, type Kysely } from 'kysely';
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
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** The advisory lock inserts share and claims take alone: the bytes of "vigilpng". */
const PING_ORDER_LOCK = 0x76_69_67_69_6c_70_6e_67n.toString();

/**
 * A heartbeat check with its last ping. The token's expression is step 25's index's, over the same
 * partial condition, so the look-up by token is indexed.
 */
const MONITORS = sql`SELECT c.account_id, c.doc, (SELECT max(e.at_ms) FROM heartbeat_events AS e WHERE e.account_id = c.account_id AND e.check_id = c.id) AS last_ping_ms
  FROM checks AS c WHERE c.check_type = 'HEARTBEAT'`;

export class PostgresHeartbeatPings implements HeartbeatPings {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async record(ping: StoredPing): Promise<boolean> {
    checkStoredPing(ping);
    // In a unit of work (the ping route's), in its transaction: the shared lock is held to its commit.
    return withinTransaction(this.#db, async (tx) => {
      await sql`SELECT pg_advisory_xact_lock_shared(${PING_ORDER_LOCK}::bigint)`.execute(tx);
      const { rows } = await sql<{ id: string }>`
        INSERT INTO heartbeat_events (account_id, id, check_id, at_ms, doc) VALUES (${ping.accountId}, ${ping.id}, ${ping.checkId}, ${ping.atMs}::bigint, ${ping.doc})
        ON CONFLICT (account_id, id) DO NOTHING RETURNING id`.execute(tx);
      return rows.length > 0;
    });
  }

  async startOnce(): Promise<boolean> {
    return this.#db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${PING_ORDER_LOCK}::bigint)`.execute(tx);
      const { rows } = await sql<{ only_row: number }>`
        INSERT INTO heartbeat_ping_start (only_row, last_seq) SELECT 1, coalesce(max(seq), 0) FROM heartbeat_events
        ON CONFLICT (only_row) DO NOTHING RETURNING only_row`.execute(tx);
      if (rows.length === 0) return false;
      await sql`UPDATE heartbeat_events SET pending = false, lease_until_ms = NULL WHERE pending`.execute(tx);
      return true;
    });
  }

  async claim(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<StoredPing[]> {
    checkPingClaim(owner, nowMs, leaseMs, limit);
    const rows = await this.#db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${PING_ORDER_LOCK}::bigint)`.execute(tx);
      const { rows: claimed } = await sql<ClaimedPingRow>`
        UPDATE heartbeat_events AS e SET lease_owner = ${owner}, lease_until_ms = ${nowMs + leaseMs}::bigint
        FROM (
          SELECT c.account_id, c.id FROM heartbeat_events AS c
          WHERE c.pending AND NOT EXISTS (
            SELECT 1 FROM heartbeat_events AS held
            WHERE held.pending AND held.account_id = c.account_id AND held.check_id = c.check_id AND held.lease_until_ms > ${nowMs}::bigint
          )
          ORDER BY c.seq
          LIMIT ${limit}
        ) AS picked
        WHERE e.account_id = picked.account_id AND e.id = picked.id
        RETURNING e.seq, e.account_id, e.check_id, e.id, e.at_ms, e.doc`.execute(tx);
      return claimed;
    });
    return claimedPings(rows);
  }

  async processed(pings: readonly PingKey[], owner: string): Promise<boolean[]> {
    checkPingKeys(pings, owner);
    if (pings.length === 0) return [];
    // One statement for the batch: the rows it confirmed come back, and the answers are read off them.
    const { rows } = await sql<{ account_id: string; id: string }>`
      UPDATE heartbeat_events AS e SET pending = false, lease_until_ms = NULL
      FROM (SELECT * FROM unnest(${pings.map((ping) => ping.accountId)}::text[], ${pings.map((ping) => ping.id)}::text[]) AS p(account_id, id)) AS p
      WHERE e.account_id = p.account_id AND e.id = p.id AND e.pending AND e.lease_owner = ${owner}
      RETURNING e.account_id, e.id`.execute(this.#db);
    const confirmed = new Set(rows.map((row) => `${row.account_id}\u0000${row.id}`));
    return pings.map((ping) => confirmed.has(`${ping.accountId}\u0000${ping.id}`));
  }

  async ofCheck(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<StoredPing[]> {
    checkPingRange(accountId, checkId, fromMs, toMs);
    // Ids in byte order, as SQLite orders them, whatever the database's collation.
    const { rows } = await sql<{ id: string; at_ms: number; doc: string }>`
      SELECT id, at_ms, doc FROM heartbeat_events WHERE account_id = ${accountId} AND check_id = ${checkId} AND at_ms >= ${fromMs}::bigint AND at_ms < ${toMs}::bigint
      ORDER BY at_ms, id COLLATE "C"`.execute(this.#db);
    return rows.map((row) => ({ accountId, checkId, id: row.id, atMs: Number(row.at_ms), doc: row.doc }));
  }

  async progress(accountId: string, id: string): Promise<PingProgress | undefined> {
    checkPingKey({ accountId, id });
    const { rows } = await sql<{ pending: boolean; owner: string | null; lease_until_ms: number | null }>`
      SELECT pending, lease_owner AS owner, lease_until_ms FROM heartbeat_events WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && { processed: !row.pending, owner: row.owner, leaseUntilMs: row.lease_until_ms === null ? null : Number(row.lease_until_ms) };
  }

  async monitorOfToken(token: string): Promise<HeartbeatMonitor | undefined> {
    checkPingToken(token);
    const { rows } = await sql<MonitorRow>`${MONITORS} AND (c.doc::jsonb -> 'heartbeat' ->> 'pingToken') = ${token} LIMIT 1`.execute(this.#db);
    return rows[0] && monitorOf(rows[0]);
  }

  async monitors(): Promise<HeartbeatMonitor[]> {
    const { rows } = await sql<MonitorRow>`${MONITORS} ORDER BY c.seq`.execute(this.#db);
    return rows.map(monitorOf);
  }

  async prune(beforeMs: number, limit: number): Promise<number> {
    checkPingPrune(beforeMs, limit);
    const { numAffectedRows } = await sql`
      DELETE FROM heartbeat_events WHERE (account_id, id) IN (
        SELECT account_id, id FROM heartbeat_events WHERE at_ms < ${beforeMs}::bigint AND NOT pending LIMIT ${limit})`.execute(this.#db);
    return Number(numAffectedRows ?? 0n);
  }
}

/**
 * The agent-presence port (agent-ports.ts) in SQLite (`agent_presence`, step 39): a row per queue and
 * agent id with what the agent last said, written by whichever replica (process on the file) it
 * polled. An upsert keeps the newest sighting, so writes landing out of order never move it back. A
 * private location's agent is live only while its key's row (private_location_keys) exists.
 */
import type { Statement } from 'better-sqlite3';
import { checkQueues, checkSighting, type AgentPresence, type AgentPresenceRecord, type AgentSighting } from '../agent-ports.js';
import { agentPresenceOf, type AgentPresenceRow } from '../formats/agent-presence-row.js';
import { moment, text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';


/** Whether the row's key (if any) still exists: written once, used by the listing and the live queues. */
const KEY_HELD = '(p.key_id IS NULL OR EXISTS (SELECT 1 FROM private_location_keys k WHERE k.id = p.key_id))';

export class SqliteAgentPresence implements AgentPresence {
  readonly #store: BatchedSqlite;
  #prepared: { seen: Statement; touch: Statement; live: Statement; list: Statement; holders: Statement; prune: Statement } | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call, as the other ports of the store's connection. */
  #statements() {
    const { db } = this.#store;
    return (this.#prepared ??= {
      seen: db.prepare(`
        INSERT INTO agent_presence (queue, agent_id, location, account_id, private_location_id, key_id, agent_version, wire_version, runs_in_flight, last_seen_ms)
        VALUES (@queue, @agentId, @location, @accountId, @privateLocationId, @keyId, @agentVersion, @wireVersion, @runsInFlight, @lastSeenMs)
        ON CONFLICT (queue, agent_id) DO UPDATE SET
          location = excluded.location, account_id = excluded.account_id, private_location_id = excluded.private_location_id,
          key_id = excluded.key_id, agent_version = excluded.agent_version, wire_version = excluded.wire_version,
          runs_in_flight = excluded.runs_in_flight, last_seen_ms = excluded.last_seen_ms
        WHERE excluded.last_seen_ms >= agent_presence.last_seen_ms`),
      touch: db.prepare('UPDATE agent_presence SET last_seen_ms = ? WHERE queue = ? AND agent_id = ? AND last_seen_ms < ?'),
      live: db
        .prepare(`SELECT DISTINCT p.queue FROM agent_presence p WHERE p.queue IN (SELECT value FROM json_each(?)) AND p.last_seen_ms > ? AND ${KEY_HELD}`)
        .pluck(),
      list: db.prepare(`SELECT p.*, ${KEY_HELD} AS key_held FROM agent_presence p WHERE p.account_id IS NULL OR p.account_id = ?`),
      holders: db.prepare('SELECT agent_id, queue FROM agent_presence WHERE key_id = ? ORDER BY queue, agent_id'),
      prune: db.prepare('DELETE FROM agent_presence WHERE last_seen_ms < ?'),
    });
  }

  async seen(sighting: AgentSighting): Promise<void> {
    checkSighting(sighting);
    const { privateLocation } = sighting;
    const row = {
      queue: sighting.queue,
      agentId: sighting.agentId,
      location: sighting.location,
      accountId: privateLocation?.accountId ?? null,
      privateLocationId: privateLocation?.id ?? null,
      keyId: privateLocation?.keyId ?? null,
      agentVersion: sighting.agentVersion,
      wireVersion: sighting.wireVersion,
      runsInFlight: sighting.runsInFlight,
      lastSeenMs: sighting.lastSeenMs,
    };
    await committed(this.#store, () => this.#statements().seen.run(row));
  }

  async touch(queue: string, agentId: string, nowMs: number): Promise<void> {
    text('queue', queue, 1000);
    text('agentId', agentId, 1000);
    moment('nowMs', nowMs);
    await committed(this.#store, () => this.#statements().touch.run(nowMs, queue, agentId, nowMs));
  }

  async liveQueues(queues: readonly string[], seenAfterMs: number): Promise<string[]> {
    checkQueues(queues);
    moment('seenAfterMs', seenAfterMs);
    if (queues.length === 0) return [];
    // The queues as one JSON parameter: one prepared statement for any number of them.
    return (this.#statements().live.all(JSON.stringify(queues), seenAfterMs) as string[]).sort();
  }

  async list(accountId: string | undefined): Promise<AgentPresenceRecord[]> {
    if (accountId !== undefined) text('accountId', accountId, 1000);
    return (this.#statements().list.all(accountId ?? null) as AgentPresenceRow[]).map(agentPresenceOf);
  }

  async holdersOfKey(keyId: string): Promise<Array<{ agentId: string; queue: string }>> {
    text('keyId', keyId, 255);
    return (this.#statements().holders.all(keyId) as Array<{ agent_id: string; queue: string }>).map((row) => ({ agentId: row.agent_id, queue: row.queue }));
  }

  async prune(seenBeforeMs: number): Promise<number> {
    moment('seenBeforeMs', seenBeforeMs);
    return committed(this.#store, () => this.#statements().prune.run(seenBeforeMs).changes);
  }
}

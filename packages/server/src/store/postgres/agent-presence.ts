/**
 * The agent-presence port (agent-ports.ts) in PostgreSQL (migrations.ts, "runner agents' presence"),
 * the same table and rules as store/sqlite/agent-presence.ts: a row per queue and agent id, an upsert
 * that keeps the newest sighting whatever order replicas' writes land in, and a private location's
 * agent live only while its key's row exists.
 */
import { sql, type Kysely } from 'kysely';
import { checkQueues, checkSighting, type AgentPresence, type AgentPresenceRecord, type AgentSighting } from '../agent-ports.js';
import { agentPresenceOf, type AgentPresenceRow } from '../formats/agent-presence-row.js';
import { moment, text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';


/** Whether the row's key (if any) still exists. */
const keyHeld = sql`(p.key_id IS NULL OR EXISTS (SELECT 1 FROM private_location_keys k WHERE k.id = p.key_id))`;

export class PostgresAgentPresence implements AgentPresence {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async seen(sighting: AgentSighting): Promise<void> {
    checkSighting(sighting);
    const { privateLocation } = sighting;
    await sql`
      INSERT INTO agent_presence (queue, agent_id, location, account_id, private_location_id, key_id, agent_version, wire_version, runs_in_flight, last_seen_ms)
      VALUES (${sighting.queue}, ${sighting.agentId}, ${sighting.location}, ${privateLocation?.accountId ?? null}, ${privateLocation?.id ?? null},
              ${privateLocation?.keyId ?? null}, ${sighting.agentVersion}, ${sighting.wireVersion}, ${sighting.runsInFlight}, ${sighting.lastSeenMs})
      ON CONFLICT (queue, agent_id) DO UPDATE SET
        location = excluded.location, account_id = excluded.account_id, private_location_id = excluded.private_location_id,
        key_id = excluded.key_id, agent_version = excluded.agent_version, wire_version = excluded.wire_version,
        runs_in_flight = excluded.runs_in_flight, last_seen_ms = excluded.last_seen_ms
      WHERE excluded.last_seen_ms >= agent_presence.last_seen_ms`.execute(this.#db);
  }

  async touch(queue: string, agentId: string, nowMs: number): Promise<void> {
    text('queue', queue, 1000);
    text('agentId', agentId, 1000);
    moment('nowMs', nowMs);
    await sql`UPDATE agent_presence SET last_seen_ms = ${nowMs} WHERE queue = ${queue} AND agent_id = ${agentId} AND last_seen_ms < ${nowMs}`.execute(this.#db);
  }

  async liveQueues(queues: readonly string[], seenAfterMs: number): Promise<string[]> {
    checkQueues(queues);
    moment('seenAfterMs', seenAfterMs);
    if (queues.length === 0) return [];
    const { rows } = await sql<{ queue: string }>`
      SELECT DISTINCT p.queue FROM agent_presence p
      WHERE p.queue = ANY(${[...queues]}::text[]) AND p.last_seen_ms > ${seenAfterMs} AND ${keyHeld}`.execute(this.#db);
    return rows.map((row) => row.queue).sort();
  }

  async list(accountId: string | undefined): Promise<AgentPresenceRecord[]> {
    if (accountId !== undefined) text('accountId', accountId, 1000);
    const { rows } = await sql<AgentPresenceRow>`
      SELECT p.*, ${keyHeld} AS key_held FROM agent_presence p
      WHERE p.account_id IS NULL OR p.account_id = ${accountId ?? null}`.execute(this.#db);
    return rows.map(agentPresenceOf);
  }

  async holdersOfKey(keyId: string): Promise<Array<{ agentId: string; queue: string }>> {
    text('keyId', keyId, 255);
    const { rows } = await sql<{ agent_id: string; queue: string }>`SELECT agent_id, queue FROM agent_presence WHERE key_id = ${keyId} ORDER BY queue, agent_id`.execute(this.#db);
    return rows.map((row) => ({ agentId: row.agent_id, queue: row.queue }));
  }

  async prune(seenBeforeMs: number): Promise<number> {
    moment('seenBeforeMs', seenBeforeMs);
    const result = await sql`DELETE FROM agent_presence WHERE last_seen_ms < ${seenBeforeMs}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0);
  }
}

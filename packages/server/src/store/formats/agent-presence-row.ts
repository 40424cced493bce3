/**
 * An agent's sighting as both engines' `agent_presence` tables return it (the same columns; numbers
 * and the key's existence come back as the driver types them: SQLite integers, PostgreSQL BIGINT as
 * text and a boolean), and the record the port answers with: one mapping, so the engines cannot drift.
 */
import type { AgentPresenceRecord } from '../agent-ports.js';

export interface AgentPresenceRow {
  queue: string;
  agent_id: string;
  location: string;
  account_id: string | null;
  private_location_id: string | null;
  key_id: string | null;
  agent_version: string;
  wire_version: number;
  runs_in_flight: number;
  last_seen_ms: number | string;
  key_held: boolean | number;
}

export function agentPresenceOf(row: AgentPresenceRow): AgentPresenceRecord {
  return {
    agentId: row.agent_id,
    queue: row.queue,
    location: row.location,
    ...(row.account_id !== null && row.private_location_id !== null && row.key_id !== null
      ? { privateLocation: { accountId: row.account_id, id: row.private_location_id, keyId: row.key_id } }
      : {}),
    agentVersion: row.agent_version,
    wireVersion: Number(row.wire_version),
    runsInFlight: Number(row.runs_in_flight),
    lastSeenMs: Number(row.last_seen_ms),
    keyHeld: Boolean(row.key_held),
  };
}

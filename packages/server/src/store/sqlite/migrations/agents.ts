/**
 * Step 27: runs queued for runner agents of locations not run in-process, and the leases agents
 * hold on them (store/sqlite/agent-leases.ts). Step 28: private locations' agent keys, as digests
 * (store/sqlite/private-locations.ts).
 */
import type { SqliteStep } from './step.js';

export const AGENT_STEPS: readonly SqliteStep[] = [
  {
    step: 27,
    name: 'runs queued for agents and their leases',
    up: (db) => {
      db.exec(`
        CREATE TABLE agent_runs (
          account_id TEXT NOT NULL,
          slot_key TEXT NOT NULL,
          check_id TEXT NOT NULL,
          location TEXT NOT NULL,
          due_ms INTEGER NOT NULL,
          job TEXT NOT NULL,
          queued_ms INTEGER NOT NULL,
          lease_id TEXT,
          agent_id TEXT,
          lease_expires_ms INTEGER,
          handouts INTEGER NOT NULL DEFAULT 0,
          finished_ms INTEGER,
          outcome TEXT CHECK (outcome IN ('reported', 'not-executed', 'superseded')),
          PRIMARY KEY (account_id, slot_key)
        );
        CREATE INDEX agent_runs_open ON agent_runs (location, due_ms) WHERE finished_ms IS NULL;
        CREATE UNIQUE INDEX agent_runs_lease ON agent_runs (lease_id);
        CREATE INDEX agent_runs_finished ON agent_runs (finished_ms) WHERE finished_ms IS NOT NULL;
      `);
    },
  },
  {
    step: 28,
    name: "private locations' agent keys",
    up: (db) => {
      db.exec(`
        CREATE TABLE private_location_keys (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          account_id TEXT NOT NULL,
          private_location_id TEXT NOT NULL,
          key_digest BLOB NOT NULL UNIQUE,
          masked_key TEXT NOT NULL,
          created_at TEXT NOT NULL
        );
        CREATE INDEX private_location_keys_location ON private_location_keys (account_id, private_location_id);
      `);
    },
  },
];

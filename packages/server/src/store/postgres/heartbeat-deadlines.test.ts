/** What the contract suite cannot show on a fresh database: an upgrade across the step that made claims leases. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from './database.js';
import { PostgresHeartbeatDeadlines } from './heartbeat-deadlines.js';
import { POSTGRES_MIGRATIONS, migratePostgres } from './migrations.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const ANCHOR = Date.UTC(2026, 10, 1, 8);
const FIRST = ANCHOR + 60_000;

describe('PostgreSQL heartbeat deadlines', () => {
  it('count a window claimed before claims were leases as confirmed, so an upgrade never fails it again', async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    try {
      await migratePostgres(db, POSTGRES_MIGRATIONS.filter((step) => step.version < 10));
      await sql`INSERT INTO heartbeat_timings (account_id, check_id, period_ms, grace_ms, anchor_ms, next_due_ms) VALUES ('acc', 'hb', 60000, 0, ${ANCHOR}, ${FIRST + 60_000})`.execute(db);
      await sql`INSERT INTO heartbeat_deadlines (account_id, check_id, reported_due_ms, reported_by) VALUES ('acc', 'hb', ${FIRST}, 'replica-before')`.execute(db);
      expect(await migratePostgres(db)).toContain(10);
      const deadlines = new PostgresHeartbeatDeadlines(db);
      expect(await deadlines.claimMissed(FIRST + 60_000 - 1, 10, 'replica', 60_000)).toEqual([]);
      expect(await deadlines.reported('acc', 'hb')).toEqual({ dueMs: FIRST, owner: 'replica-before', leaseUntilMs: null });
      expect((await deadlines.claimMissed(FIRST + 60_000, 10, 'replica', 60_000)).map((missed) => missed.dueMs)).toEqual([FIRST + 60_000]);
    } finally {
      await close();
    }
  });
});

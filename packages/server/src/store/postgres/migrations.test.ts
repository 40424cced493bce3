import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from './database.js';
import { POSTGRES_MIGRATIONS, migratePostgres } from './migrations.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const ALL = POSTGRES_MIGRATIONS.map((step) => step.version);

describe('PostgreSQL migrations', () => {
  it('are applied once when several replicas start at once, and are a no-op afterwards', async () => {
    const connectionString = await postgres.freshDatabase();
    const replicas = Array.from({ length: 4 }, () => openPostgres({ connectionString, maxConnections: 2 }));
    try {
      const applied = await Promise.all(replicas.map(({ db }) => migratePostgres(db)));
      // One replica applied every step; the others waited on the lock and found nothing to do.
      expect(applied.filter((versions) => versions.length > 0)).toEqual([ALL]);
      expect(applied.filter((versions) => versions.length === 0)).toHaveLength(3);
      const recorded = await sql<{ version: number; name: string }>`SELECT version, name FROM vigil_migrations ORDER BY version`.execute(replicas[0]!.db);
      expect(recorded.rows).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
      expect(await migratePostgres(replicas[1]!.db)).toEqual([]);
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });

  it('applies only the steps a database has not run; a failing step rolls back the whole run', async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    try {
      expect(await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 1))).toEqual([1]);
      const broken = { version: 99, name: 'broken', up: async () => Promise.reject(new Error('step 99 failed')) };
      await expect(migratePostgres(db, [...POSTGRES_MIGRATIONS, broken])).rejects.toThrow('step 99 failed');
      // The whole run was one transaction: steps 2 and 3 of that run were rolled back with 99.
      expect(await migratePostgres(db)).toEqual(ALL.slice(1));
    } finally {
      await close();
    }
  });

  it("step 28 keeps each check and location's highest claimed slot and highest finished one, and drops the row a slot", async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    try {
      await migratePostgres(db, POSTGRES_MIGRATIONS.filter((step) => step.version < 28));
      const claimed = (checkId: string, dueMs: number, location: string, finishedMs: number | null) =>
        sql`INSERT INTO scheduled_runs (account_id, slot_key, check_id, due_ms, location, claimed_ms, finished_ms)
            VALUES ('acc', ${`${checkId}@${dueMs}@${location}`}, ${checkId}, ${dueMs}::bigint, ${location}, ${dueMs + 5}::bigint, ${finishedMs}::bigint)`.execute(db);
      await claimed('c1', 1000, 'eu', 1100);
      await claimed('c1', 2000, 'eu', 2100);
      await claimed('c1', 3000, 'eu', null);
      await claimed('c1', 2000, 'us', null);
      await migratePostgres(db);
      const marks = await sql`SELECT check_id, location, due_ms, claimed_ms, prior_due_ms, finished_due_ms, finished_ms FROM slot_claims ORDER BY check_id, location`.execute(db);
      expect(marks.rows).toEqual([
        { check_id: 'c1', location: 'eu', due_ms: 3000, claimed_ms: 3005, prior_due_ms: null, finished_due_ms: 2000, finished_ms: 2100 },
        { check_id: 'c1', location: 'us', due_ms: 2000, claimed_ms: 2005, prior_due_ms: null, finished_due_ms: null, finished_ms: null },
      ]);
      const left = await sql<{ name: string | null }>`SELECT to_regclass('scheduled_runs')::text AS name`.execute(db);
      expect(left.rows).toEqual([{ name: null }]);
    } finally {
      await close();
    }
  });

  it('refuses a list with a version twice', async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    try {
      await expect(migratePostgres(db, [...POSTGRES_MIGRATIONS, POSTGRES_MIGRATIONS[0]!])).rejects.toThrow(
        'PostgreSQL migrations have duplicate or invalid versions; this is a bug in vigil',
      );
    } finally {
      await close();
    }
  });
});

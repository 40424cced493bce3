/**
 * The change feed's order on PostgreSQL: a write still in flight is never passed by a reader, whatever
 * the other replicas commit and read meanwhile.
 */
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoragePorts } from '../ports.js';
import { openPostgres, type PostgresSchema } from './database.js';
import { DocumentVacuums, VACUUM_EVERY_INSERTS, VACUUM_ON_READ_INSERTS } from './document-vacuums.js';
import { PostgresDocuments } from './documents.js';
import { openPostgresPorts } from './index.js';
import { POSTGRES_MIGRATIONS, migratePostgres } from './migrations.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

describe('the documents change feed on PostgreSQL', () => {
  it('numbers a write that committed after a later one was read after it, so a reader misses neither', async () => {
    const connectionString = await postgres.freshDatabase();
    const ports: StoragePorts = await openPostgresPorts({ connectionString });
    const slow = new pg.Client({ connectionString });
    const observer = new pg.Client({ connectionString });
    await slow.connect();
    await observer.connect();
    open.push(ports, { close: () => slow.end() }, { close: () => observer.end() });

    // Another replica's write, as the engine makes it, stopped between adding its entry and committing:
    // its entry was written first.
    await slow.query('BEGIN');
    await slow.query("INSERT INTO document_changes (kind, account_id, id, changed_ms) VALUES ('checks', 'acc', 'slow', 1)");

    const fast = await ports.documents.insert('checks', 'acc', (id) => ({ id, name: 'fast' }));
    const before = await ports.documents.changesSince(0, 10);
    expect(before.changes.map((change) => change.id)).toEqual([String(fast.id)]);

    await slow.query('COMMIT');
    const after = await ports.documents.changesSince(before.position, 10);
    expect(after.changes.map((change) => change.id)).toEqual(['slow']);
    expect(after.changes[0]!.position).toBeGreaterThan(before.position);
    // Numbered once: a numbering finds nothing left to number.
    const unnumbered = await observer.query('SELECT count(*)::int AS n FROM document_changes WHERE position IS NULL');
    expect(unnumbered.rows[0].n).toBe(0);
  });

  it('keeps the positions entries had before they were numbered once committed, and numbers new ones after them', async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    try {
      await migratePostgres(db, POSTGRES_MIGRATIONS.filter((step) => step.version < 11));
      await sql`INSERT INTO document_changes (kind, account_id, id, changed_ms) VALUES ('checks', 'acc', 'old-1', 1), ('checks', 'acc', 'old-2', 2)`.execute(db);
      expect(await migratePostgres(db)).toContain(11);
      const documents = new PostgresDocuments(db);
      expect((await documents.changesSince(0, 10)).changes.map(({ position, id }) => [position, id])).toEqual([[1, 'old-1'], [2, 'old-2']]);
      const stored = await documents.insert('checks', 'acc', (id) => ({ id, name: 'new' }));
      expect((await documents.changesSince(2, 10)).changes.map(({ position, id }) => [position, id])).toEqual([[3, String(stored.id)]]);
    } finally {
      await close();
    }
  });
});

/** Pages of `checks` VACUUM has marked visible to all (pg_class, which VACUUM updates). */
async function allVisiblePages(db: Kysely<PostgresSchema>): Promise<number> {
  const { rows } = await sql<{ pages: number }>`SELECT relallvisible AS pages FROM pg_class WHERE oid = 'checks'::regclass`.execute(db);
  return rows[0]!.pages;
}

/**
 * A fresh database of the test cluster whose connections commit synchronously, as a durable service's
 * do. The throwaway cluster commits asynchronously, and VACUUM marks a page visible to all only once
 * the commits of the rows on it are flushed, which the WAL writer does on its own clock.
 */
async function synchronouslyCommittingDatabase(): Promise<string> {
  const url = new URL(await postgres.freshDatabase());
  url.searchParams.set('options', '-c synchronous_commit=on');
  return url.toString();
}

describe('VACUUMs after bulk inserts on PostgreSQL', () => {
  it('starts one at a page read once a hundred documents were inserted since the last, and not before', async () => {
    const { db, close } = openPostgres({ connectionString: await synchronouslyCommittingDatabase() });
    open.push({ close });
    await migratePostgres(db);
    const vacuums = new DocumentVacuums(db);
    const documents = new PostgresDocuments(db, vacuums);
    for (let n = 1; n < VACUUM_ON_READ_INSERTS; n += 1) await documents.insert('checks', 'acc', (id) => ({ id, name: `check ${n}` }));
    await documents.splicedCheckPage('acc', { limit: 10, page: 1 }, '}');
    await vacuums.settled();
    expect(await allVisiblePages(db)).toBe(0);

    await documents.insert('checks', 'acc', (id) => ({ id, name: 'the hundredth' }));
    const page = await documents.pageText('checks', 'acc', { limit: 10, page: 10 });
    expect(page).toMatchObject({ total: VACUUM_ON_READ_INSERTS });
    expect(page.items).toHaveLength(10);
    await vacuums.settled();
    expect(await allVisiblePages(db)).toBeGreaterThan(0);
  });

  it('starts one every thousand inserts without a read', async () => {
    const { db, close } = openPostgres({ connectionString: await synchronouslyCommittingDatabase() });
    open.push({ close });
    await migratePostgres(db);
    const vacuums = new DocumentVacuums(db);
    const documents = new PostgresDocuments(db, vacuums);
    for (let n = 1; n < VACUUM_EVERY_INSERTS; n += 1) await documents.insert('checks', 'acc', (id) => ({ id, name: `check ${n}` }));
    await vacuums.settled();
    expect(await allVisiblePages(db)).toBe(0);
    await documents.insert('checks', 'acc', (id) => ({ id, name: 'the thousandth' }));
    await vacuums.settled();
    expect(await allVisiblePages(db)).toBeGreaterThan(0);
  });

  it('answers a page read past the last page with the total, counted on its own', async () => {
    const { db, close } = openPostgres({ connectionString: await postgres.freshDatabase() });
    open.push({ close });
    await migratePostgres(db);
    const documents = new PostgresDocuments(db, new DocumentVacuums(db));
    for (const name of ['a', 'b', 'c']) await documents.insert('checks', 'acc', (id) => ({ id, name }));
    expect(await documents.pageText('checks', 'acc', { limit: 2, page: 3 })).toEqual({ items: [], total: 3 });
    expect(await documents.splicedCheckPage('acc', { limit: 2, page: 3 }, '}')).toEqual({ json: Buffer.from('[]'), count: 0, total: 3 });
    expect(await documents.pageText('checks', 'other', { limit: 2, page: 1 })).toEqual({ items: [], total: 0 });
  });
});

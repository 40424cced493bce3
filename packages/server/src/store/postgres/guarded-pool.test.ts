/**
 * Which statements the pool prepares per connection, and that a prepared one answers as an unnamed one
 * does; the connections units of work leave to statements outside one.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runAsUnitOf } from '../unit-of-work.js';
import { PostgresUnavailableError } from './connection-errors.js';
import { openPostgres, type PostgresDatabase, type PostgresOptions } from './database.js';
import { STATEMENT_CONNECTIONS, StatementNames } from './guarded-pool.js';
import { useTestPostgres } from './test-database.js';

/** Pools opened on fresh databases of the describe's cluster, each closed after its test. */
function usePools(): (options: Omit<PostgresOptions, 'connectionString'>) => Promise<PostgresDatabase> {
  const postgres = useTestPostgres();
  const opened: PostgresDatabase[] = [];
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
  });
  // Quiet: the cluster stops after the file's last test, which a pool may hear of on a connection it keeps.
  return async (options) => {
    const database = openPostgres({ connectionString: await postgres.freshDatabase(), warn: () => undefined, ...options });
    opened.push(database);
    return database;
  };
}

describe('naming statements to prepare', () => {
  it('names a text with parameters from its second send on, the same name each time', () => {
    const names = new StatementNames();
    const text = 'SELECT doc FROM checks WHERE account_id = $1 AND id = $2';
    expect(names.nameOf(text, ['acc', '1'])).toBeUndefined();
    const name = names.nameOf(text, ['acc', '2']);
    expect(name).toMatch(/^vigil_[\w-]{32}$/);
    expect(names.nameOf(text, ['acc', '3'])).toBe(name);
  });

  it('gives two texts two names', () => {
    const names = new StatementNames();
    const first = ['SELECT 1 WHERE $1::int > 0', 'SELECT 2 WHERE $1::int > 0'].map((text) => {
      names.nameOf(text, [1]);
      return names.nameOf(text, [1]);
    });
    expect(first[0]).not.toBe(first[1]);
  });

  it('never names a text without parameters, nor one with * among its columns, however often it is sent', () => {
    const names = new StatementNames();
    for (let sent = 0; sent < 5; sent++) {
      expect(names.nameOf('BEGIN', [])).toBeUndefined();
      expect(names.nameOf('SELECT key FROM result_series', undefined)).toBeUndefined();
      expect(names.nameOf('SELECT * FROM checks WHERE id = $1', ['1'])).toBeUndefined();
      expect(names.nameOf('SELECT page.*, n FROM t AS page WHERE id = $1', ['1'])).toBeUndefined();
      expect(names.nameOf('UPDATE t SET a = $1 RETURNING *', ['1'])).toBeUndefined();
    }
    names.nameOf('SELECT count(*) AS n FROM checks WHERE account_id = $1', ['acc']);
    expect(names.nameOf('SELECT count(*) AS n FROM checks WHERE account_id = $1', ['acc'])).toMatch(/^vigil_/);
  });

  it('names 400 texts at most: the next ones stay unnamed', () => {
    const names = new StatementNames();
    const nameOf = (n: number) => {
      names.nameOf(`SELECT ${n} WHERE $1::int > 0`, [1]);
      return names.nameOf(`SELECT ${n} WHERE $1::int > 0`, [1]);
    };
    for (let n = 0; n < 400; n++) expect(nameOf(n)).toMatch(/^vigil_/);
    expect(nameOf(400)).toBeUndefined();
    expect(nameOf(0)).toMatch(/^vigil_/);
  });
});

describe('prepared statements on PostgreSQL', () => {
  const openPool = usePools();

  it('prepares a statement sent twice on the connection, which then answers as before', async () => {
    // One connection, so the statements prepared are those of the connection the query reads from.
    const database = await openPool({ maxConnections: 1 });
    const { db } = database;
    const doubled = (n: number) => sql<{ doubled: number }>`SELECT ${n}::int + ${n}::int AS doubled`.execute(db);
    expect((await doubled(1)).rows).toEqual([{ doubled: 2 }]);
    expect((await doubled(2)).rows).toEqual([{ doubled: 4 }]);
    expect((await doubled(3)).rows).toEqual([{ doubled: 6 }]);
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db);
    expect(rows).toEqual([{ statement: 'SELECT $1::int + $2::int AS doubled' }]);
  });

  it('prepares nothing with prepareStatements false, however often a statement is sent', async () => {
    const database = await openPool({ maxConnections: 1, prepareStatements: false });
    const { db } = database;
    for (let n = 1; n <= 3; n++) expect((await sql<{ sum: number }>`SELECT ${n}::int + 1 AS sum`.execute(db)).rows).toEqual([{ sum: n + 1 }]);
    expect((await sql`SELECT statement FROM pg_prepared_statements`.execute(db)).rows).toEqual([]);
  });

  it('fails a prepared statement with the error of the statement, and runs it again after', async () => {
    const database = await openPool({ maxConnections: 1 });
    const { db } = database;
    const divided = (n: number) => sql<{ q: number }>`SELECT 6 / ${n}::int AS q`.execute(db);
    expect((await divided(1)).rows).toEqual([{ q: 6 }]);
    expect((await divided(2)).rows).toEqual([{ q: 3 }]);
    await expect(divided(0)).rejects.toThrow('division by zero');
    expect((await divided(3)).rows).toEqual([{ q: 2 }]);
  });
});

describe('connections kept for statements outside a unit of work', () => {
  const openPool = usePools();
  /** A pool whose units of work hold one connection at most. */
  const openWithOneUnitShare = async (options: { connectionTimeoutMs?: number } = {}) => {
    const database = await openPool({ maxConnections: STATEMENT_CONNECTIONS + 1, ...options });
    return database.db;
  };
  /** A unit of work that has run a statement in its transaction and holds its connection until `release` is called. */
  const holdingUnit = (db: PostgresDatabase['db'], owner: object, ran: string[], name: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const done = runAsUnitOf(owner, () =>
      db.transaction().execute(async (tx) => {
        await sql`SELECT 1`.execute(tx);
        ran.push(name);
        holding();
        await released;
      }),
    );
    return { holds, release, done };
  };

  it('runs a statement while a unit waits for the share of the pool another unit holds, and the waiting unit once that one ends', async () => {
    const db = await openWithOneUnitShare();
    const ran: string[] = [];
    const first = holdingUnit(db, {}, ran, 'first unit');
    await first.holds;
    const second = holdingUnit(db, {}, ran, 'second unit');
    await sql`SELECT 2`.execute(db);
    ran.push('statement');
    first.release();
    await first.done;
    await second.holds;
    second.release();
    await second.done;
    expect(ran).toEqual(['first unit', 'statement', 'second unit']);
  });

  it('gives a unit holding its share a second connection without waiting for another share', async () => {
    const db = await openWithOneUnitShare({ connectionTimeoutMs: 2_000 });
    const answered = await runAsUnitOf({}, () =>
      db.transaction().execute(async (tx) => {
        await sql`SELECT 1`.execute(tx);
        return (await sql<{ n: number }>`SELECT 3 AS n`.execute(db)).rows;
      }),
    );
    expect(answered).toEqual([{ n: 3 }]);
  });

  it('fails a unit that waited the connection timeout for its share as the database being unavailable, and lets the next one in after', async () => {
    const db = await openWithOneUnitShare({ connectionTimeoutMs: 300 });
    const ran: string[] = [];
    const first = holdingUnit(db, {}, ran, 'first unit');
    await first.holds;
    const refused = runAsUnitOf({}, () => db.transaction().execute(async (tx) => sql`SELECT 1`.execute(tx)));
    await expect(refused).rejects.toThrow(PostgresUnavailableError);
    await expect(refused).rejects.toThrow(/^PostgreSQL at 127\.0\.0\.1:\d+\/test_\d+ is unavailable: timeout exceeded when trying to connect$/);
    first.release();
    await first.done;
    const next = holdingUnit(db, {}, ran, 'next unit');
    await next.holds;
    next.release();
    await next.done;
    expect(ran).toEqual(['first unit', 'next unit']);
  });
});

describe('connections kept open once made', () => {
  const openPool = usePools();
  /** The pool's connections to its database as the server sees them, through a connection of the pool's own (hence minus one). */
  const othersOpen = async (db: PostgresDatabase['db']) =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(db)).rows[0]!.n;
  /** Two statements at once, so the pool opens two connections. */
  const openTwo = (db: PostgresDatabase['db']) => Promise.all([sql`SELECT pg_sleep(0.05)`.execute(db), sql`SELECT pg_sleep(0.05)`.execute(db)]);

  it('keeps every connection it opened past the idle timeout by default', async () => {
    const database = await openPool({ maxConnections: 2, idleTimeoutMs: 1 });
    await openTwo(database.db);
    // Waiting well past the 1 ms idle timeout, which would have closed both.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await othersOpen(database.db)).toBe(1);
  });

  it('closes idle connections beyond minConnections', async () => {
    const database = await openPool({ maxConnections: 2, minConnections: 0, idleTimeoutMs: 1 });
    await openTwo(database.db);
    // Waiting for the pool to close the connection idle beside the one asking.
    let open = await othersOpen(database.db);
    for (let asked = 0; open > 0 && asked < 100; asked++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      open = await othersOpen(database.db);
    }
    expect(open).toBe(0);
  });

  it('refuses minConnections above maxConnections or below 0', async () => {
    // Refused before any connection is made, so no server need listen there.
    const connectionString = 'postgres://127.0.0.1:1/never-connected';
    expect(() => openPostgres({ connectionString, maxConnections: 4, minConnections: 5 })).toThrow('minConnections must be a whole number from 0 to maxConnections (4), got 5');
    expect(() => openPostgres({ connectionString, minConnections: -1 })).toThrow('minConnections must be a whole number from 0 to maxConnections (10), got -1');
  });
});

/**
 * PostgreSQL's raw results are kept a partition per UTC day, and pruned by dropping whole partitions
 * and deleting the older rows of the day the cutoff falls in.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { partitionName } from './check-results.js';
import { usePortsWithClient, useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const DAY = 86_400_000;
const DAY0 = Date.UTC(2026, 10, 1);
const database = usePortsWithClient(postgres);

async function partitions(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_results'::regclass ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

const run = (at: number) => [{ id: randomUUID(), checkId: 'chk', created_at: new Date(at).toISOString(), runLocation: 'eu-west-1', hasFailures: false, resultType: 'FINAL', responseTime: 12 }];

describe('check results on PostgreSQL', () => {
  it('prepares a partition per UTC day ahead, and an append to an unprepared day makes its own', async () => {
    const { ports, client } = await database();
    await ports.checkResults.prepareDays(DAY0 + 5, DAY0 + 2 * DAY);
    expect(await partitions(client)).toEqual([partitionName(DAY0), partitionName(DAY0 + DAY), partitionName(DAY0 + 2 * DAY)]);
    expect(partitionName(DAY0)).toBe('check_results_p20261101');
    await ports.checkResults.appendRun('acct', run(DAY0 + 9 * DAY + 1));
    expect(await partitions(client)).toContain('check_results_p20261110');
    const { rows } = await client.query<{ day: string }>('SELECT tableoid::regclass::text AS day FROM check_results');
    expect(rows).toEqual([{ day: 'check_results_p20261110' }]);
  });

  it("stores a unit's appends to a day it has and then to a day the pool makes while the unit is open", async () => {
    const { ports, client } = await database();
    await ports.checkResults.prepareDays(DAY0, DAY0);
    await ports.transaction(async (tx) => {
      await tx.checkResults.appendRun('acct', run(DAY0 + 1000));
      // No partition for this day yet: made and attached in a transaction of its own, then routed to by this unit.
      await tx.checkResults.appendRun('acct', run(DAY0 + 3 * DAY + 1000));
    });
    expect(await partitions(client)).toEqual(['check_results_p20261101', 'check_results_p20261104']);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((doc) => doc.created_at.slice(0, 10))).toEqual(['2026-11-04', '2026-11-01']);
  });

  it("routes a unit's first append to a day another replica attached after the unit read results", async () => {
    const { ports, client } = await database();
    await ports.checkResults.prepareDays(DAY0, DAY0);
    await ports.checkResults.appendRun('acct', run(DAY0 + 1000));
    await ports.transaction(async (tx) => {
      expect(await tx.checkResults.newestFirst('acct', 'chk', { limit: 10 })).toHaveLength(1);
      // As another replica's prepareDays does, while this unit holds its read's lock on check_results.
      const day = DAY0 + 5 * DAY;
      await client.query(`CREATE TABLE ${partitionName(day)} (LIKE check_results INCLUDING DEFAULTS)`);
      await client.query(`ALTER TABLE check_results ATTACH PARTITION ${partitionName(day)} FOR VALUES FROM (${day}) TO (${day + DAY})`);
      await tx.checkResults.appendRun('acct', run(day + 1000));
    });
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((doc) => doc.created_at.slice(0, 10))).toEqual(['2026-11-06', '2026-11-01']);
  });

  it('prunes by detaching and dropping the partitions of old days, deleting no row of the days kept', async () => {
    const { ports, client } = await database();
    for (let d = 0; d < 4; d++) await ports.checkResults.appendRun('acct', run(DAY0 + d * DAY + 1000));
    await client.query('SELECT pg_stat_force_next_flush()');
    const deletedBefore = await client.query<{ deleted: string }>("SELECT coalesce(sum(n_tup_del), 0)::text AS deleted FROM pg_stat_user_tables WHERE relname LIKE 'check_results_p%'");
    await ports.checkResults.prune(DAY0 + 3 * DAY + 5, { rawMs: 2 * DAY, hourlyMs: 30 * DAY, dailyMs: 400 * DAY });
    expect(await partitions(client)).toEqual(['check_results_p20261102', 'check_results_p20261103', 'check_results_p20261104']);
    // The day's table is gone, not emptied and kept.
    const { rows } = await client.query("SELECT relname FROM pg_class WHERE relname = 'check_results_p20261101'");
    expect(rows).toEqual([]);
    await client.query('SELECT pg_stat_force_next_flush()');
    const deletedAfter = await client.query<{ deleted: string }>("SELECT coalesce(sum(n_tup_del), 0)::text AS deleted FROM pg_stat_user_tables WHERE relname LIKE 'check_results_p%'");
    expect(deletedAfter.rows[0]!.deleted).toBe(deletedBefore.rows[0]!.deleted);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((doc) => doc.created_at.slice(0, 10))).toEqual(['2026-11-04', '2026-11-03', '2026-11-02']);
  });

  it('deletes only the rows older than the cutoff from the day it falls in, keeping that day\'s partition', async () => {
    const { ports, client } = await database();
    const cutoff = DAY0 + DAY + 12 * 3_600_000;
    for (const at of [DAY0 + 5, cutoff - 7_200_000, cutoff - 1, cutoff, cutoff + 1, DAY0 + 2 * DAY + 5]) await ports.checkResults.appendRun('acct', run(at));
    const oidOf = async (name: string) => (await client.query<{ oid: number }>('SELECT oid FROM pg_class WHERE relname = $1', [name])).rows[0]?.oid;
    const boundaryTable = await oidOf('check_results_p20261102');
    await ports.checkResults.prune(cutoff + 2 * DAY, { rawMs: 2 * DAY, hourlyMs: 30 * DAY, dailyMs: 400 * DAY });
    expect(await partitions(client)).toEqual(['check_results_p20261102', 'check_results_p20261103']);
    // The same table, not a new one made after dropping the day: its older rows were deleted.
    expect(await oidOf('check_results_p20261102')).toBe(boundaryTable);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((doc) => Date.parse(doc.created_at))).toEqual([DAY0 + 2 * DAY + 5, cutoff + 1, cutoff]);
  });
});

describe('what the pool keeps of series and locations between reads', () => {
  const at = (location: string, moment: number) => [{ ...run(moment)[0]!, runLocation: location }];
  const window = { fromMs: DAY0, toMs: DAY0 + DAY, page: 1, limit: 10 };

  it('names a location first stored after the pool last read the names it knew', async () => {
    const { ports } = await database();
    await ports.checkResults.appendRun('acct', at('eu-west-1', DAY0 + 1000));
    expect((await ports.checkResults.oldestFirst('acct', 'chk', window)).items.map((doc) => doc.runLocation)).toEqual(['eu-west-1']);
    await ports.checkResults.appendRun('acct', at('us-east-1', DAY0 + 2000));
    expect((await ports.checkResults.oldestFirst('acct', 'chk', window)).items.map((doc) => doc.runLocation)).toEqual(['eu-west-1', 'us-east-1']);
  });

  it("reads a check's results once stored after a read found none, and after a unit that read its own series rolled back", async () => {
    const { ports } = await database();
    expect(await ports.checkResults.oldestFirst('acct', 'chk', window)).toEqual({ items: [], total: 0 });
    const rolledBack = ports.transaction(async (tx) => {
      await tx.checkResults.appendRun('acct', at('eu-west-1', DAY0 + 1000));
      expect((await tx.checkResults.oldestFirst('acct', 'chk', window)).total).toBe(1);
      throw new Error('rolled back on purpose');
    });
    await expect(rolledBack).rejects.toThrow('rolled back on purpose');
    expect(await ports.checkResults.oldestFirst('acct', 'chk', window)).toEqual({ items: [], total: 0 });
    await ports.checkResults.appendRun('acct', at('eu-west-1', DAY0 + 2000));
    const { items, total } = await ports.checkResults.oldestFirst('acct', 'chk', window);
    expect({ createdAt: items.map((doc) => doc.created_at), total }).toEqual({ createdAt: [new Date(DAY0 + 2000).toISOString()], total: 1 });
  });
});

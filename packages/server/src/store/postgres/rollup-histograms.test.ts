/**
 * PostgreSQL step 31 keeps a rollup row's histogram as an integer[] subscripted by bucket instead of
 * jsonb: the rows a database holds are converted and read back the same, and appends count into them.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckResultDocument } from '../ports.js';
import { bucketOf } from '../formats/rollup-histogram.js';
import { openPostgres } from './database.js';
import { openPostgresPorts } from './index.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrations.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const HOUR0 = Date.UTC(2026, 10, 1, 6);
const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

function result(at: number, responseTime: number): CheckResultDocument {
  return {
    id: `r-${at}`,
    checkId: 'chk',
    created_at: new Date(at).toISOString(),
    runLocation: 'eu-west-1',
    hasFailures: false,
    hasErrors: false,
    isDegraded: false,
    resultType: 'FINAL',
    attempts: 0,
    responseTime,
    apiCheckResult: { response: { status: 200, body: '{"ok":true}', headers: {} } },
  } as unknown as CheckResultDocument;
}

describe('PostgreSQL step 31: rollup histograms as integer arrays', () => {
  it("converts step 30's jsonb histograms, reading back the same buckets, and appends count into them", async () => {
    const connectionString = await postgres.freshDatabase();
    const migrated = openPostgres({ connectionString });
    open.push(migrated);
    await migratePostgres(migrated.db, POSTGRES_MIGRATIONS.filter((step) => step.version <= 30));
    const client = new pg.Client({ connectionString });
    await client.connect();
    open.push({ close: () => client.end() });
    await client.query(`INSERT INTO result_series (account_id, check_id) VALUES ('acct', 'chk')`);
    // Buckets far apart (0, below 1 ms), one row without response times (an empty histogram).
    const rows = [
      { table: 'result_rollups_hourly', start: HOUR0, hist: { '0': 2, '178': 12, '181': 1 } },
      { table: 'result_rollups_hourly', start: HOUR0 + 3_600_000, hist: {} },
      { table: 'result_rollups_daily', start: HOUR0 - (HOUR0 % 86_400_000), hist: { '178': 40 } },
    ];
    for (const row of rows) {
      const count = Object.values(row.hist).reduce((sum, value) => sum + value, 0);
      await client.query(
        `INSERT INTO ${row.table} (series, start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, rt_hist)
         VALUES (1, $1, 'eu-west-1', $2, 0, 0, 0, $2, $3, $3, $4, $4, $5::jsonb)`,
        [row.start, Math.max(count, 1), count * 40, count === 0 ? null : 40, JSON.stringify(row.hist)],
      );
    }
    expect(await migratePostgres(migrated.db)).toEqual(POSTGRES_MIGRATIONS.filter((step) => step.version > 30).map((step) => step.version));
    const stored = await client.query(`SELECT rt_hist::text AS hist FROM result_rollups_hourly ORDER BY start_ms`);
    expect(stored.rows).toEqual([{ hist: `[0:181]={2,${'NULL,'.repeat(177)}12,NULL,NULL,1}` }, { hist: '{}' }]);

    const ports = await openPostgresPorts({ connectionString });
    open.push(ports);
    const histograms = async (granularity: 'hourly' | 'daily') =>
      (await ports.checkResults.rollups('acct', 'chk', granularity, 0, HOUR0 + 86_400_000)).map((row) => [row.startMs, [...row.histogram.entries()]]);
    expect(await histograms('hourly')).toEqual([
      [HOUR0, [[0, 2], [178, 12], [181, 1]]],
      [HOUR0 + 3_600_000, []],
    ]);
    expect(await histograms('daily')).toEqual([[HOUR0 - (HOUR0 % 86_400_000), [[178, 40]]]]);

    // An append counts into a bucket counted, one below the lowest, and the empty hour's first.
    expect([bucketOf(35), bucketOf(0.5)]).toEqual([180, 0]);
    await ports.checkResults.appendRun('acct', [result(HOUR0 + 1000, 35)]);
    await ports.checkResults.appendRun('acct', [result(HOUR0 + 2000, 0.5)]);
    await ports.checkResults.appendRun('acct', [result(HOUR0 + 3_600_000 + 1000, 35)]);
    expect(await histograms('hourly')).toEqual([
      [HOUR0, [[0, 3], [178, 12], [180, 1], [181, 1]]],
      [HOUR0 + 3_600_000, [[180, 1]]],
    ]);
  });
});

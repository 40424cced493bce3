/**
 * Migration step 27 converts the results a database holds in step 8's layout into the narrower rows:
 * every result reads back the same document and facts as it did, whichever way it was stored (delta
 * from a reference, full body, a derived id with discriminator 0 or another, the runner's own id).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { unpackResultFields } from '../formats/packed-result-fields.js';
import type { CheckResultDocument } from '../ports.js';
import { openPostgres } from './database.js';
import { openPostgresPorts } from './index.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrations.js';
import { ALL_PACKED_ROWS } from './packed-results.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const DAY0 = Date.UTC(2026, 10, 1);
const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function client(connectionString: string): Promise<pg.Client> {
  const connected = new pg.Client({ connectionString });
  await connected.connect();
  open.push({ close: () => connected.end() });
  return connected;
}

function result(at: number, options: { failing?: boolean; id?: string; type?: 'FINAL' | 'ATTEMPT'; rt?: number } = {}): CheckResultDocument {
  const failing = options.failing ?? false;
  return {
    id: options.id ?? randomUUID(),
    checkId: 'chk',
    created_at: new Date(at).toISOString(),
    runLocation: at % 2 === 0 ? 'eu-west-1' : 'us-east-1',
    hasFailures: failing,
    hasErrors: false,
    isDegraded: false,
    resultType: options.type ?? 'FINAL',
    attempts: options.type === 'ATTEMPT' ? 1 : 0,
    responseTime: options.rt ?? 41.25,
    apiCheckResult: {
      response: { status: failing ? 503 : 200, body: failing ? 'down' : '{"ok":true}', headers: {}, timingPhases: { wait: 1.5, dns: 0, tcp: 2.25, firstByte: 30, download: 1, total: 41.25 } },
    },
  } as unknown as CheckResultDocument;
}

/** The step-8 columns of a step-27 row, as step 8's engine wrote them. */
function stepEightRow(row: { created_ms: number; series: number; ref: number | null; flags: number; run_location: string; id_key: Buffer; packed: Buffer }): unknown[] {
  const fields = unpackResultFields(row.packed);
  return [
    row.series, row.created_ms, row.id_key.length === 0 ? Buffer.from([0, 0, 0]) : row.id_key, row.flags & 1, (row.flags & 2) >> 1, row.run_location, fields.attempts,
    fields.responseTime, fields.statusCode, Buffer.isBuffer(fields.phases) ? fields.phases : null, typeof fields.phases === 'string' ? fields.phases : null, (row.flags & 4) >> 2,
    Buffer.from(fields.body), row.ref,
  ];
}

describe('PostgreSQL step 27: narrower result rows', () => {
  it('converts step-8 rows so that every result reads back the same document and facts', async () => {
    // The results as the engine stores them today, in a database of their own.
    const current = await postgres.freshDatabase();
    const ports = await openPostgresPorts({ connectionString: current });
    open.push(ports);
    for (let i = 0; i < 6; i++) await ports.checkResults.appendRun('acct', [result(DAY0 + 3_600_000 + i * 20_000, { failing: i === 3 })]);
    // Two tries at one instant: the second takes discriminator 1.
    const at = DAY0 + 7_200_000;
    await ports.checkResults.appendRun('acct', [result(at, { type: 'ATTEMPT', failing: true }), result(at, { rt: 0.1 + 0.2 })]);
    const keptId = randomUUID();
    expect(await ports.checkResults.appendKept('acct', result(DAY0 + 9_000_000, { id: keptId }))).toBe(true);
    const documents = await ports.checkResults.newestFirst('acct', 'chk', { limit: 50 });
    const facts = await ports.checkResults.facts('acct', 'chk', DAY0, DAY0 + 86_400_000);
    expect(documents).toHaveLength(9);

    // The same rows in step 8's layout, in a database migrated through step 26.
    const old = await postgres.freshDatabase();
    const migrated = openPostgres({ connectionString: old });
    open.push(migrated);
    await migratePostgres(migrated.db, POSTGRES_MIGRATIONS.filter((step) => step.version <= 26));
    const from = await client(current);
    const to = await client(old);
    await to.query("CREATE TABLE check_results_p20261101 (LIKE check_results INCLUDING DEFAULTS)");
    await to.query(`ALTER TABLE check_results ATTACH PARTITION check_results_p20261101 FOR VALUES FROM (${DAY0}) TO (${DAY0 + 86_400_000})`);
    for (const table of ['result_series', 'check_results_locations', 'check_results_references']) {
      const { rows, fields } = await from.query(`SELECT * FROM ${table}`);
      const names = fields.map((field) => field.name);
      for (const row of rows) {
        const overriding = ['result_series', 'check_results_locations', 'check_results_references'].includes(table) ? 'OVERRIDING SYSTEM VALUE' : '';
        await to.query(`INSERT INTO ${table} (${names.join(', ')}) ${overriding} VALUES (${names.map((_, index) => `$${index + 1}`).join(', ')})`, names.map((name) => row[name]));
      }
    }
    // Every row the engine stores, whether in the day's partition or packed in its block's row (steps 29 and 30).
    const { rows } = await from.query(`SELECT created_ms::float8 AS created_ms, series, ref, flags, run_location, id_key, packed FROM check_results
      UNION ALL SELECT created_ms::float8, series, ref, flags, run_location, id_key, packed FROM (${ALL_PACKED_ROWS}) p`);
    for (const row of rows) {
      await to.query(
        `INSERT INTO check_results (series, created_ms, id_key, final, has_failures, run_location, attempts, response_time, status_code, phases, phases_json, encoding, body, ref)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        stepEightRow(row),
      );
    }

    expect(await migratePostgres(migrated.db)).toEqual(POSTGRES_MIGRATIONS.filter((step) => step.version > 26).map((step) => step.version));
    const converted = await openPostgresPorts({ connectionString: old });
    open.push(converted);
    expect(await converted.checkResults.newestFirst('acct', 'chk', { limit: 50 })).toEqual(documents);
    expect(await converted.checkResults.facts('acct', 'chk', DAY0, DAY0 + 86_400_000)).toEqual(facts);
    expect(await converted.checkResults.find('acct', 'chk', keptId)).toEqual(documents.find((document) => document.id === keptId));
    // Step 29 packed the blocks before the current one, all but the result kept under its own id.
    const unpacked = await to.query('SELECT count(*)::int AS rows FROM check_results');
    expect(unpacked.rows).toEqual([{ rows: 1 }]);
    // The day keeps its partition's name, and appending goes on where it stopped.
    const partitions = await to.query("SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_results'::regclass");
    expect(partitions.rows).toEqual([{ name: 'check_results_p20261101' }]);
    await converted.checkResults.appendRun('acct', [result(DAY0 + 10_000_000)]);
    expect(await converted.checkResults.newestFirst('acct', 'chk', { limit: 50 })).toHaveLength(10);
  });
});

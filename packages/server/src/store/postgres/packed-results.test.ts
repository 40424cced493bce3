/**
 * PostgreSQL packs a check's results of a five-minute block into one row once the check's appends
 * move on to a later block (postgres/packed-results.ts): every read answers as before the packing,
 * a late result and its id still find their place, and pruning cuts a block at the millisecond;
 * step 30 converts the blocks step 29 packed into its smaller layout, reading back the same.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { CheckResultDocument, StoragePorts } from '../ports.js';
import { openPostgres } from './database.js';
import { openPostgresPorts } from './index.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrations.js';
import { ALL_PACKED_ROWS, PACK_BLOCK_MS } from './packed-results.js';
import { usePortsWithClient, useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const DAY = 86_400_000;
const BLOCK0 = Date.UTC(2026, 10, 1, 6);
const database = usePortsWithClient(postgres);

function result(at: number, options: { failing?: boolean; type?: 'FINAL' | 'ATTEMPT'; location?: string } = {}): CheckResultDocument {
  const failing = options.failing ?? false;
  return {
    id: randomUUID(),
    checkId: 'chk',
    created_at: new Date(at).toISOString(),
    runLocation: options.location ?? 'eu-west-1',
    hasFailures: failing,
    hasErrors: false,
    isDegraded: false,
    resultType: options.type ?? 'FINAL',
    attempts: options.type === 'ATTEMPT' ? 1 : 0,
    responseTime: 40 + (at % 7),
    apiCheckResult: { response: { status: failing ? 503 : 200, body: failing ? 'down' : '{"ok":true}', headers: {}, timingPhases: { wait: 1.5, dns: 0, tcp: 2.25, firstByte: 30, download: 1, total: 41.25 } } },
  } as unknown as CheckResultDocument;
}

async function counts(client: pg.Client): Promise<{ unpacked: number; blocks: number; packed: number }> {
  const { rows } = await client.query<{ unpacked: number; blocks: number; packed: number }>(
    `SELECT (SELECT count(*) FROM check_results)::int AS unpacked, (SELECT count(*) FROM check_results_packed)::int AS blocks,
            (SELECT coalesce(sum(cardinality(offset_ms)), 0) FROM check_results_packed)::int AS packed`,
  );
  return rows[0]!;
}

/** How many elements each array of each block's row holds, oldest block first. */
async function cardinalities(client: pg.Client): Promise<Array<Record<string, number>>> {
  const { rows } = await client.query<Record<string, number>>(
    `SELECT cardinality(offset_ms) AS offset_ms, cardinality(id_key) AS id_key, cardinality(run_location) AS run_location,
            cardinality(flags) AS flags, cardinality(packed) AS packed, cardinality(ref) AS ref
       FROM check_results_packed ORDER BY start_ms, offset_ms[1]`,
  );
  return rows;
}

/** Every read of the port over the check's results of the first block. */
async function reads(ports: StoragePorts) {
  const results = ports.checkResults;
  const all = await results.newestFirst('acct', 'chk', { limit: 100, toMs: BLOCK0 + PACK_BLOCK_MS });
  return {
    all,
    page: await results.newestFirst('acct', 'chk', { limit: 2, offset: 1, fromMs: BLOCK0 + 1, toMs: BLOCK0 + PACK_BLOCK_MS }),
    failing: await results.oldestFirst('acct', 'chk', { page: 1, limit: 10, hasFailures: true, fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    attempts: await results.oldestFirst('acct', 'chk', { page: 2, limit: 1, resultType: 'ATTEMPT', fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    elsewhere: await results.oldestFirst('acct', 'chk', { page: 1, limit: 10, location: 'us-east-1', fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    facts: await results.facts('acct', 'chk', BLOCK0, BLOCK0 + PACK_BLOCK_MS),
    found: await Promise.all(all.map((document) => results.find('acct', 'chk', document.id))),
  };
}

describe('packed results on PostgreSQL', () => {
  it('packs a block once the check appends in a later one, every read answering as before', async () => {
    const { ports, client } = await database();
    await ports.checkResults.appendRun('acct', [result(BLOCK0)]);
    // Two tries at one instant (the FINAL one takes discriminator 1), one failing, one elsewhere.
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 20_000, { type: 'ATTEMPT', failing: true }), result(BLOCK0 + 20_000)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 40_000, { type: 'ATTEMPT', failing: true }), result(BLOCK0 + 45_000, { failing: true })]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 60_000, { location: 'us-east-1' })]);
    const before = await reads(ports);
    expect(before.all).toHaveLength(6);
    expect(await counts(client)).toEqual({ unpacked: 6, blocks: 0, packed: 0 });

    const later = await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS + 5)]);
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 1, packed: 6 });
    // The results differ in location, flags, id and reference (a failing one is kept whole, without one): every array keeps each element.
    expect(await cardinalities(client)).toEqual([{ offset_ms: 6, id_key: 6, run_location: 6, flags: 6, packed: 6, ref: 6 }]);
    expect(await reads(ports)).toEqual(before);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 1 }))[0]).toEqual(later[0]);
  });

  it('keeps one element of a column every result of a block agrees on, reading it back for each result', async () => {
    const { ports, client } = await database();
    for (let round = 0; round < 15; round++) await ports.checkResults.appendRun('acct', [result(BLOCK0 + round * 20_000)]);
    const before = await reads(ports);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS)]);
    expect(await cardinalities(client)).toEqual([{ offset_ms: 15, id_key: 1, run_location: 1, flags: 1, packed: 15, ref: 1 }]);
    expect(await reads(ports)).toEqual(before);
    expect(before.all).toHaveLength(15);
  });

  it('stores a late result of a packed block, at an instant a packed result has, under the next free id', async () => {
    const { ports, client } = await database();
    const [first] = await ports.checkResults.appendRun('acct', [result(BLOCK0 + 1000)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS)]);
    const [late] = await ports.checkResults.appendRun('acct', [result(BLOCK0 + 1000)]);
    expect(late!.id).not.toBe(first!.id);
    // Packed at the check's next append in a block of its own: two rows for the first block.
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 2 * PACK_BLOCK_MS)]);
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 3, packed: 3 });
    const ids = (await ports.checkResults.oldestFirst('acct', 'chk', { page: 1, limit: 10, fromMs: BLOCK0, toMs: BLOCK0 + DAY })).items.map((document) => document.id);
    expect(ids.slice(0, 2).sort()).toEqual([first!.id, late!.id].sort());
    expect(ids).toHaveLength(4);
    expect(await ports.checkResults.find('acct', 'chk', late!.id)).toEqual(late);
  });

  it('prunes packed results to the millisecond: a block the cutoff falls in keeps its results at and after it', async () => {
    const { ports, client } = await database();
    for (const at of [BLOCK0, BLOCK0 + PACK_BLOCK_MS + 1000, BLOCK0 + PACK_BLOCK_MS + 2000, BLOCK0 + PACK_BLOCK_MS + 3000, BLOCK0 + 3 * PACK_BLOCK_MS]) {
      await ports.checkResults.appendRun('acct', [result(at)]);
    }
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 2, packed: 4 });
    const cutoff = BLOCK0 + PACK_BLOCK_MS + 2000;
    await ports.checkResults.prune(cutoff + DAY, { rawMs: DAY, hourlyMs: 30 * DAY, dailyMs: 400 * DAY });
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 1, packed: 2 });
    // The block's row made anew as packing makes it: one element where its results agree.
    expect(await cardinalities(client)).toEqual([{ offset_ms: 2, id_key: 1, run_location: 1, flags: 1, packed: 2, ref: 1 }]);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((document) => Date.parse(document.created_at))).toEqual([
      BLOCK0 + 3 * PACK_BLOCK_MS,
      BLOCK0 + PACK_BLOCK_MS + 3000,
      cutoff,
    ]);
  });
});

describe('PostgreSQL step 30: packed blocks small uncompressed', () => {
  it("converts step 29's blocks so that every read answers as before", async () => {
    // The results as the engine stores them today: blocks packed, one block's results all alike.
    const { ports, client } = await database();
    for (let round = 0; round < 15; round++) await ports.checkResults.appendRun('acct', [result(BLOCK0 + round * 20_000)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS, { type: 'ATTEMPT', failing: true }), result(BLOCK0 + PACK_BLOCK_MS)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS + 40_000, { location: 'us-east-1', failing: true })]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 2 * PACK_BLOCK_MS)]);
    const before = await reads(ports);
    const all = await ports.checkResults.newestFirst('acct', 'chk', { limit: 100 });
    expect(all).toHaveLength(19);

    // The same rows unpacked, in a database migrated through step 28: steps 29 and 30 pack every block
    // before the clock's (all three) and convert them.
    const old = await postgres.freshDatabase();
    const migrated = openPostgres({ connectionString: old });
    const to = new pg.Client({ connectionString: old });
    await to.connect();
    try {
      await migratePostgres(migrated.db, POSTGRES_MIGRATIONS.filter((step) => step.version <= 28));
      const day = BLOCK0 - (BLOCK0 % DAY);
      await to.query('CREATE TABLE check_results_p20261101 (LIKE check_results INCLUDING DEFAULTS)');
      await to.query(`ALTER TABLE check_results ATTACH PARTITION check_results_p20261101 FOR VALUES FROM (${day}) TO (${day + DAY})`);
      for (const table of ['result_series', 'check_results_locations', 'check_results_references']) {
        const { rows, fields } = await client.query(`SELECT * FROM ${table}`);
        const names = fields.map((field) => field.name);
        for (const row of rows) {
          await to.query(`INSERT INTO ${table} (${names.join(', ')}) OVERRIDING SYSTEM VALUE VALUES (${names.map((_, index) => `$${index + 1}`).join(', ')})`, names.map((name) => row[name]));
        }
      }
      const columns = 'series, created_ms, id_key, run_location, flags, packed, ref';
      const { rows } = await client.query(`SELECT ${columns} FROM check_results UNION ALL SELECT ${columns} FROM (${ALL_PACKED_ROWS}) p`);
      for (const row of rows) {
        await to.query(`INSERT INTO check_results (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [row.series, row.created_ms, row.id_key, row.run_location, row.flags, row.packed, row.ref]);
      }
      expect(await migratePostgres(migrated.db)).toEqual(POSTGRES_MIGRATIONS.filter((step) => step.version > 28).map((step) => step.version));
      expect(await cardinalities(to)).toEqual([
        { offset_ms: 15, id_key: 1, run_location: 1, flags: 1, packed: 15, ref: 1 },
        { offset_ms: 3, id_key: 3, run_location: 3, flags: 3, packed: 3, ref: 3 },
        { offset_ms: 1, id_key: 1, run_location: 1, flags: 1, packed: 1, ref: 1 },
      ]);
      const converted = await openPostgresPorts({ connectionString: old });
      try {
        expect(await reads(converted)).toEqual(before);
        expect(await converted.checkResults.newestFirst('acct', 'chk', { limit: 100 })).toEqual(all);
      } finally {
        await converted.close();
      }
    } finally {
      await to.end();
      await migrated.close();
    }
  });
});

/**
 * Disk growth of the results on each engine, on the workload the comparison with Uptime Kuma was
 * measured on: 1,000 HTTP monitors every 20 s against one target (Kuma grew 33.7 MB/h there, about
 * 187 bytes per result). Runner-shaped API results, 1 % failing, are appended through the
 * `CheckResults` port as the service records runs (ids derived from check and time, passing results
 * reduced against the check's last one, rollups folded in), round by round as the schedule makes
 * them. The growth is measured over the later rounds (WINDOW), so the first pages each table and
 * index starts with are not counted: SQLite's every page (dbstat), PostgreSQL's every table with its
 * indexes and TOAST (`pg_total_relation_size`, each day's partition counted), each measured after a
 * `VACUUM`, as autovacuum keeps a running service's updated rows (rollups, reference results).
 *
 * The rollups are measured apart, over a whole hour: a rollup row is made once a check and hour (or
 * day) and then grows (its histogram gains buckets) fastest in the hour's first minutes, so a window
 * of a few minutes counts either a whole hour's new rows (when it crosses an hour) or the early growth
 * (when it does not) against its few minutes' results, 20 to 50 bytes a result too many. So the hour
 * before the workload's, SAMPLE_MONITORS more checks run every 20 s for the whole hour first, and the
 * rollup tables' size then (each table with its indexes), over the hour's and the day's results of
 * those checks, is the rollups' share; the window counts every other table. All rounds of the
 * workload fall in one clock hour.
 *
 * The results are appended without the service's HTTP layer or scheduler: what is measured is what a
 * result costs the disk, not how fast the service makes them (the scheduler suites measure that).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Store } from '../../../packages/server/src/store/index.js';
import type { StoragePorts } from '../../../packages/server/src/store/ports.js';
import type { CheckResultDocument } from '../../../packages/server/src/store/result-ports.js';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';
import { PACK_BLOCK_MS } from '../../../packages/server/src/store/postgres/packed-results.js';
import { openPostgresPorts } from '../../../packages/server/src/store/postgres/index.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import type { BenchContext, BenchFigure, BenchSuite } from '../harness.js';
import { runnerLikeResult } from './analytics.js';

const MONITORS = 1_000;
const EVERY_MS = 20_000;
/** Rounds of every monitor: 40 rounds are 40,000 results, about 13 minutes of the workload. */
const ROUNDS = Number(process.env.VIGIL_BENCH_DISK_ROUNDS ?? 40);
/** Runs appended at once, as the scheduler's recording has several runs in flight. */
const IN_FLIGHT = 50;
const RESULTS_PER_HOUR = MONITORS * (3_600_000 / EVERY_MS);
/** Checks that run a whole hour for the rollups' share: enough rows that pages being whole counts for little. */
const SAMPLE_MONITORS = Number(process.env.VIGIL_BENCH_DISK_SAMPLE ?? 100);
const HOUR_MS = 3_600_000;
/** Uptime Kuma on the same workload: 33.7 MB/h over 180,000 results an hour. */
const KUMA_BYTES_PER_RESULT = 33.7e6 / RESULTS_PER_HOUR;

const checkIdOf = (monitor: number) => `00000000-0000-4000-8000-${String(monitor).padStart(12, '0')}`;

/** Rounds of a block PostgreSQL packs a check's results by (postgres/packed-results.ts). */
const ROUNDS_A_BLOCK = PACK_BLOCK_MS / EVERY_MS;

/**
 * The rounds measured, `[from, to)`: from just after the first round of a block past the first quarter
 * of the workload to just after the first round of the last block it reaches (rounds 16 to 30 of 40).
 * The first round of a block is the one whose appends pack each check's block before, so at both ends
 * PostgreSQL's day partition holds the same working set (the block just begun; the space of the rows
 * packed away is reused once vacuumed), and the growth between them is what a running service keeps
 * adding, not how far the latest minutes' rows have got: measured at other moments, the partition
 * counted from −19 to +15 bytes a result of it. SQLite is measured over the same rounds.
 */
const WINDOW = {
  from: Math.ceil(ROUNDS / 4 / ROUNDS_A_BLOCK) * ROUNDS_A_BLOCK + 1,
  to: Math.floor((ROUNDS - 1) / ROUNDS_A_BLOCK) * ROUNDS_A_BLOCK + 1,
};

/** Rounds a minute of the workload takes: as often as autovacuum looks at the tables (`autovacuum_naptime`). */
const ROUNDS_A_MINUTE = 60_000 / EVERY_MS;

/**
 * Appends rounds `[from, to)` of the run of monitors `[firstMonitor, firstMonitor + monitors)`, IN_FLIGHT runs at a time,
 * with the engine's `minutely` upkeep after each minute of the workload.
 */
async function appendRounds(ports: StoragePorts, minutely: () => Promise<void>, startMs: number, from: number, to: number, monitors = MONITORS, firstMonitor = 0): Promise<void> {
  for (let round = from; round < to; round++) {
    if (round > from && round % ROUNDS_A_MINUTE === 0) await minutely();
    for (let first = 0; first < monitors; first += IN_FLIGHT) {
      await Promise.all(
        Array.from({ length: Math.min(IN_FLIGHT, monitors - first) }, (_, offset) => {
          const monitor = firstMonitor + first + offset;
          const at = startMs + round * EVERY_MS + (first + offset) * (EVERY_MS / monitors);
          // One in a hundred runs fails, spread over monitors and rounds.
          const failing = (round * MONITORS + monitor) % 100 === 37;
          return ports.checkResults.appendRun('local', [runnerLikeResult(checkIdOf(monitor), Math.round(at), failing) as unknown as CheckResultDocument]);
        }),
      );
    }
  }
}

/** What an engine's tables take: all of them, and the hourly and daily rollups' share of it. */
interface BytesOnDisk {
  total: number;
  hourlyRollups: number;
  dailyRollups: number;
  /** Each table, index and TOAST table by name: the breakdown the suite logs. */
  byRelation: ReadonlyMap<string, number>;
}

/** Logs each relation's growth a result between two measures, largest first, so a change shows where its bytes went. */
function logBreakdown(log: (line: string) => void, engine: string, from: BytesOnDisk, to: BytesOnDisk, results: number): void {
  const names = new Set([...from.byRelation.keys(), ...to.byRelation.keys()]);
  const growth = [...names]
    .map((name) => ({ name, bytes: ((to.byRelation.get(name) ?? 0) - (from.byRelation.get(name) ?? 0)) / results }))
    .filter((relation) => relation.bytes !== 0)
    .sort((a, b) => b.bytes - a.bytes);
  log(`disk-growth: ${engine} growth a result by relation: ${growth.map((relation) => `${relation.name} ${relation.bytes.toFixed(1)}`).join(', ')}`);
}

/**
 * Bytes per result on one engine: the growth of every table but the rollups between the middle and
 * the end of the workload, and the rollups' share from a whole hour of SAMPLE_MONITORS checks before it.
 */
async function growthPerResult(ports: StoragePorts, bytesOnDisk: () => Promise<BytesOnDisk>, minutely: () => Promise<void>, startMs: number, log: (line: string) => void, engine: string): Promise<number> {
  const sampleRounds = HOUR_MS / EVERY_MS;
  await ports.checkResults.prepareDays(startMs - HOUR_MS, startMs + ROUNDS * EVERY_MS);
  await appendRounds(ports, minutely, startMs - HOUR_MS, 0, sampleRounds, SAMPLE_MONITORS, MONITORS);
  const sampled = await bytesOnDisk();
  const rollups = sampled.hourlyRollups / (SAMPLE_MONITORS * sampleRounds) + sampled.dailyRollups / (SAMPLE_MONITORS * (86_400_000 / EVERY_MS));
  log(`disk-growth: ${engine} rollups' share a result: hourly ${(sampled.hourlyRollups / (SAMPLE_MONITORS * sampleRounds)).toFixed(1)}, daily ${(sampled.dailyRollups / (SAMPLE_MONITORS * (86_400_000 / EVERY_MS))).toFixed(1)}`);
  await appendRounds(ports, minutely, startMs, 0, WINDOW.from);
  const middle = await bytesOnDisk();
  await appendRounds(ports, minutely, startMs, WINDOW.from, WINDOW.to);
  const end = await bytesOnDisk();
  logBreakdown(log, engine, middle, end, (WINDOW.to - WINDOW.from) * MONITORS);
  const others = (bytes: BytesOnDisk) => bytes.total - bytes.hourlyRollups - bytes.dailyRollups;
  return (others(end) - others(middle)) / ((WINDOW.to - WINDOW.from) * MONITORS) + rollups;
}

export const suite: BenchSuite = {
  name: 'disk-growth',
  issue: 26,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    // Recent enough for the raw retention, the same instants on both engines, every round in one hour,
    // and the whole hour before it for the rollups' sample.
    const startMs = Math.floor((Date.now() - 2 * 3_600_000) / 3_600_000) * 3_600_000;
    if (ROUNDS * EVERY_MS > 3_600_000) throw new Error(`VIGIL_BENCH_DISK_ROUNDS=${ROUNDS} does not fit in an hour`);
    if (WINDOW.to <= WINDOW.from) throw new Error(`VIGIL_BENCH_DISK_ROUNDS=${ROUNDS} does not reach two blocks past its first quarter (at least ${4 * ROUNDS_A_BLOCK} rounds)`);
    const sqliteRuns: number[] = [];
    const postgresRuns: number[] = [];
    const pgDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-disk-pg-'));
    // Size on disk does not depend on fsync; without it the appends take a fraction of the time.
    const postgres = await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: false });
    try {
      for (let run = 0; run < context.runs; run++) {
        const store = new Store(path.join(context.tmpDir, `disk-growth-${run}`));
        const sqlite = sqlitePorts(store);
        try {
          const pagesOf = (names: string) => (store.db.prepare(`SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN (${names})`).pluck().get() as number);
          const rollupNames = (table: string) => `SELECT '${table}' UNION SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '${table}'`;
          const pages = async () => ({
            total: store.db.prepare('SELECT SUM(pgsize) FROM dbstat').pluck().get() as number,
            hourlyRollups: pagesOf(rollupNames('result_rollups_hourly')),
            dailyRollups: pagesOf(rollupNames('result_rollups_daily')),
            byRelation: new Map((store.db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as Array<{ name: string; bytes: number }>).map((row) => [row.name, row.bytes])),
          });
          // SQLite reuses a deleted row's space without upkeep.
          sqliteRuns.push(await growthPerResult(sqlite, pages, async () => {}, startMs, context.log, 'SQLite'));
        } finally {
          store.close();
        }
        context.log(`disk-growth: SQLite run ${run + 1}: ${sqliteRuns.at(-1)!.toFixed(1)} bytes per result`);

        const connectionString = await postgres.createDatabase(`disk_growth_${run}`);
        const ports = await openPostgresPorts({ connectionString });
        const sizes = new pg.Client({ connectionString });
        await sizes.connect();
        try {
          const relations = async () => {
            // What autovacuum does within a minute of a table's updates on a running service (the
            // rollups and reference rows are updated by every result): without it the growth would
            // count dead row versions the next vacuum makes reusable.
            await sizes.query('VACUUM');
            const { rows } = await sizes.query<{ bytes: string; hourly: string; daily: string }>(
              `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::text AS bytes,
                      pg_total_relation_size('result_rollups_hourly')::text AS hourly, pg_total_relation_size('result_rollups_daily')::text AS daily
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'm') AND n.nspname = current_schema()`,
            );
            // Every relation on its own (a partition's heap, each index, each TOAST table and its index),
            // partitions named by their table so each day's shows apart.
            const each = await sizes.query<{ name: string; bytes: string }>(
              `SELECT c.relname AS name, pg_relation_size(c.oid)::text AS bytes
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'i', 'm') AND n.nspname = current_schema()
               UNION ALL
               SELECT c.relname || ' TOAST', (pg_total_relation_size(c.reltoastrelid))::text
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'm') AND n.nspname = current_schema() AND c.reltoastrelid <> 0`,
            );
            const byRelation = new Map(each.rows.map((row) => [row.name, Number(row.bytes)]));
            return { total: Number(rows[0]!.bytes), hourlyRollups: Number(rows[0]!.hourly), dailyRollups: Number(rows[0]!.daily), byRelation };
          };
          // Autovacuum looks at every table each minute, and vacuums those with enough rows updated or
          // deleted (every rollup row is updated by every result; packing deletes a block's rows), so the
          // next minute's rows reuse their space: VACUUM each minute of the workload stands for it.
          const vacuum = async () => {
            await sizes.query('VACUUM');
          };
          postgresRuns.push(await growthPerResult(ports, relations, vacuum, startMs, context.log, 'PostgreSQL'));
        } finally {
          await sizes.end();
          await ports.close();
        }
        context.log(`disk-growth: PostgreSQL run ${run + 1}: ${postgresRuns.at(-1)!.toFixed(1)} bytes per result`);
      }
    } finally {
      await postgres.stop();
      await rm(pgDir, { recursive: true, force: true });
    }
    const goal = { text: `≤ ${(KUMA_BYTES_PER_RESULT / 2).toFixed(0)} bytes (half of Uptime Kuma's ≈ ${KUMA_BYTES_PER_RESULT.toFixed(0)})`, met: (value: number) => value <= KUMA_BYTES_PER_RESULT / 2 };
    const note = `${MONITORS} API monitors every ${EVERY_MS / 1000} s, runner-shaped results, 1 % failing (kept whole), ${ROUNDS} rounds appended through the CheckResults port ${IN_FLIGHT} runs at a time; growth from round ${WINDOW.from} to ${WINDOW.to} (each just after a five-minute block's first round) within one hour, every table and index counted, the rollups as their size after a whole hour of ${SAMPLE_MONITORS} checks over those checks' results of the hour (hourly) and day (daily); ×${RESULTS_PER_HOUR.toLocaleString('en-US')} for MB/h`;
    return [
      { id: 'disk-growth.sqlite', issue: 26, label: 'disk growth per result on SQLite (1,000 monitors every 20 s)', unit: 'bytes', better: 'lower', runs: sqliteRuns, goal, note: `${note}; SQLite dbstat pages` },
      {
        id: 'disk-growth.postgres',
        issue: 26,
        label: 'disk growth per result on PostgreSQL (1,000 monitors every 20 s)',
        unit: 'bytes',
        better: 'lower',
        runs: postgresRuns,
        baseline: { label: 'SQLite, same results (same run)', runs: sqliteRuns },
        goal,
        note: `${note}; pg_total_relation_size of every table and partition (indexes and TOAST included), embedded PostgreSQL`,
      },
      {
        id: 'disk-growth.postgres-mb-per-hour',
        issue: 26,
        label: 'PostgreSQL data growth on the Uptime Kuma workload',
        unit: 'MB/h',
        better: 'lower',
        runs: postgresRuns.map((bytes) => (bytes * RESULTS_PER_HOUR) / 1e6),
        baseline: { label: 'SQLite (same run)', runs: sqliteRuns.map((bytes) => (bytes * RESULTS_PER_HOUR) / 1e6) },
        goal: { text: '≤ 16.9 MB/h (half of Uptime Kuma\'s 33.7)', met: (value) => value <= 33.7 / 2 },
        note,
      },
    ];
  },
};

/**
 * Two replicas on PostgreSQL beside one process on SQLite, under the scheduler suite's load: two
 * `vigil server --database URL` processes on one embedded PostgreSQL (durable, as a user's would
 * be), N API checks every minute against a loopback target, created through both replicas (check n
 * through replica n mod 2). The replicas share the work through the database (slot claims, alert
 * transitions, outbox leases), so a slot runs once whichever replica claims it.
 *
 * Figures, over the measured window: start lag p50/p99 (when a run started minus the moment its slot
 * was due, from the results, read through both replicas' APIs), missed slots, slots run more than
 * once, slots recorded as not executed, `GET /v1/checks?limit=100` and check-results p99 (the
 * requests alternate between the replicas), the CPU of each replica and of PostgreSQL (its
 * postmaster, its live backends and other children, and the children it has reaped meanwhile), and
 * the database's growth per day of results (`pg_database_size` at the window's end minus at its
 * start, scaled from the window to a day), and the share of it that is the slot claims' table (a row
 * per check and location, updated in place: after each check's first run it should not grow at all),
 * with that table's size at the window's end per check. The window opens a whole minute later than the
 * scheduler suite's, after every check has run once (measureReplicas says why). Inside each replica
 * over the window (../lib/service-diagnostics.mjs): its event loop's delay, and its waits for a
 * PostgreSQL connection, units of work (scheduled runs) apart from single statements (API reads),
 * with the connections the pool had to open; each figure the worse replica's.
 *
 * Baseline in the same run: the scheduler suite's measurement, one `vigil server` on SQLite with the
 * same load. Its growth per day is SQLite's stored size per result (the results' table and index
 * pages, dbstat) times the results a day of the load makes: the results' tables only, where
 * PostgreSQL's figure is the whole database's growth (results, rollups, the rows the runs update),
 * and over all of the run's results, each check's first ones included, which a minute or two of
 * results weighs far more than a day would.
 *
 * Quick mode: 1,000 checks every minute plus 100 every 10 seconds, one measured minute (or
 * `VIGIL_BENCH_MINUTES`). `--full`: 10,000 checks every minute for four measured minutes. Each of
 * `--runs` measures both set-ups anew (fresh database, services and target), SQLite first.
 */
import { appendFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';
import { readDiagnostics, signalDiagnostics, startServiceProcess, type ServiceDiagnostics, type ServiceProcess } from '../lib/service-process.js';
import { cpuMsOf, cpuMsOfTree, createApiChecks, postmasterPid, MINUTE_MS, nextWholeMinutes, percentile, probeApiUntil, readWindowResults, startLoopbackTarget, waitUntil } from '../lib/scheduled-checks.js';
import { median, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { loadOf, measure as measureOnSqlite, planOf, type Load, type Measurement as SqliteMeasurement } from './scheduler.js';

const REPLICAS = 2;

/**
 * VIGIL_BENCH_REPLICAS_STATEMENTS=FILE: PostgreSQL logs the plan of each statement slower than 25 ms
 * (auto_explain, with ANALYZE and BUFFERS) and, at the window's end, pg_stat_statements' slowest
 * statements of the window, both appended to FILE: where a slow request's time went in the
 * database. Off by default, as timing every plan node costs PostgreSQL CPU.
 */
const STATEMENT_SETTINGS = [
  'shared_preload_libraries=pg_stat_statements,auto_explain',
  'auto_explain.log_min_duration=25',
  'auto_explain.log_analyze=on',
  'auto_explain.log_buffers=on',
  'auto_explain.log_nested_statements=on',
];
const DAY_MS = 86_400_000;

/** One run of the replicas: a fresh PostgreSQL cluster, services and target each time. */
interface ReplicasMeasurement {
  lagP50: number;
  lagP99: number;
  missed: number;
  doubled: number;
  notExecuted: number;
  listP50: number;
  listP99: number;
  resultsP50: number;
  resultsP99: number;
  /** One per replica, in the order they started; 100 % = one core. */
  replicaCpuPercent: number[];
  postgresCpuPercent: number;
  growthBytesPerDay: number;
  growthBytesPerResult: number;
  /** Of the growth, the slot claims' table's: a row per check and location, so it should not grow with runs. */
  claimsGrowthBytesPerDay: number;
  /** The slot claims' table with its index at the window's end, per check (one location each here). */
  claimsBytesPerCheck: number;
  /** Inside each replica over the window (service-diagnostics.mjs): its event loop's delay and its pool's waits. */
  diagnostics: ServiceDiagnostics[];
}

/** The results a day of the load makes, one per slot. */
function resultsPerDay({ checks, fastChecks }: Load): number {
  return (checks + 6 * fastChecks) * (DAY_MS / MINUTE_MS);
}

export const suite: BenchSuite = {
  name: 'replicas',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const load = loadOf(context);
    // As root, PostgreSQL runs as the user "postgres", who must pass through the scratch directory
    // (made for this process's user alone) to reach its cluster inside it.
    if (process.getuid?.() === 0) await chmod(context.tmpDir, 0o711);
    // VIGIL_BENCH_REPLICAS_BASELINE=off measures the replicas alone: about half the time, for iterating on them.
    const withBaseline = process.env['VIGIL_BENCH_REPLICAS_BASELINE'] !== 'off';
    const onSqlite: SqliteMeasurement[] = [];
    const onReplicas: ReplicasMeasurement[] = [];
    for (let run = 0; run < context.runs; run++) {
      if (withBaseline) {
        context.log(`replicas: run ${run + 1} of ${context.runs}, one process on SQLite first`);
        onSqlite.push(await measureOnSqlite(context, load, path.join(context.tmpDir, `sqlite-${run}`)));
      }
      context.log(`replicas: run ${run + 1} of ${context.runs}, ${REPLICAS} replicas on PostgreSQL`);
      onReplicas.push(await measureReplicas(context, load, path.join(context.tmpDir, `postgres-${run}`)));
    }
    const { checks, fastChecks, measuredMinutes } = load;
    const note = `${checks} API checks every minute${fastChecks > 0 ? ` + ${fastChecks} every 10 s` : ''}, ${measuredMinutes} measured minute(s) per run, ${REPLICAS} replicas on one PostgreSQL, loopback target`;
    const ofReplicas = (pick: (one: ReplicasMeasurement) => number) => onReplicas.map(pick);
    const baseline = (pick: (one: SqliteMeasurement) => number) => (withBaseline ? { label: 'one process on SQLite', runs: onSqlite.map(pick) } : undefined);
    const perDay = resultsPerDay(load);
    return [
      { id: 'replicas.lag-p50', label: 'start lag p50', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.lagP50), baseline: baseline((one) => one.lagP50), note },
      { id: 'replicas.lag-p99', label: 'start lag p99', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.lagP99), baseline: baseline((one) => one.lagP99), goal: { text: '≤ 1,000 ms', met: (value) => value <= 1000 }, note },
      { id: 'replicas.missed', label: 'missed slots', unit: 'slots', better: 'lower', runs: ofReplicas((one) => one.missed), baseline: baseline((one) => one.missed), goal: { text: '0', met: (value) => value === 0 }, note },
      { id: 'replicas.doubled', label: 'slots run more than once', unit: 'slots', better: 'lower', runs: ofReplicas((one) => one.doubled), goal: { text: '0', met: (value) => value === 0 }, note: `${note}; the replicas claim each slot through the database` },
      { id: 'replicas.not-executed', label: 'slots recorded as not executed', unit: 'slots', better: 'lower', runs: ofReplicas((one) => one.notExecuted), goal: { text: '0', met: (value) => value === 0 }, note: `${note}; no agents: every location runs in the replicas` },
      { id: 'replicas.list-p50', label: 'GET /v1/checks?limit=100 p50 meanwhile', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.listP50), baseline: baseline((one) => one.listP50), note: `${note}; the requests alternate between the replicas` },
      { id: 'replicas.results-p50', label: 'GET /v1/check-results p50 meanwhile', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.resultsP50), baseline: baseline((one) => one.resultsP50), note: `${note}; the requests alternate between the replicas` },
      ...diagnosticFigures(ofReplicas, note),
      { id: 'replicas.list-p99', label: 'GET /v1/checks?limit=100 p99 meanwhile', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.listP99), baseline: baseline((one) => one.listP99), goal: { text: '≤ 50 ms', met: (value) => value <= 50 }, note: `${note}; the requests alternate between the replicas` },
      { id: 'replicas.results-p99', label: 'GET /v1/check-results p99 meanwhile', unit: 'ms', better: 'lower', runs: ofReplicas((one) => one.resultsP99), baseline: baseline((one) => one.resultsP99), goal: { text: '≤ 50 ms', met: (value) => value <= 50 }, note: `${note}; the requests alternate between the replicas` },
      ...Array.from({ length: REPLICAS }, (_, index): BenchFigure => ({
        id: `replicas.cpu-replica-${index + 1}`,
        label: `CPU of replica ${index + 1}`,
        unit: '%',
        better: 'lower',
        runs: ofReplicas((one) => one.replicaCpuPercent[index]!),
        baseline: baseline((one) => one.cpuPercent),
        note: `${note}; 100 % = one core; the baseline is the one process doing all the work`,
      })),
      { id: 'replicas.cpu-postgres', label: 'CPU of PostgreSQL', unit: '%', better: 'lower', runs: ofReplicas((one) => one.postgresCpuPercent), note: `${note}; 100 % = one core; the postmaster, its backends and other children (/proc, reaped children included)` },
      {
        id: 'replicas.cpu-total',
        label: 'CPU of the replicas and PostgreSQL together',
        unit: '%',
        better: 'lower',
        runs: ofReplicas((one) => one.replicaCpuPercent.reduce((sum, percent) => sum + percent, 0) + one.postgresCpuPercent),
        baseline: baseline((one) => one.cpuPercent),
        note: `${note}; 100 % = one core`,
      },
      {
        id: 'replicas.db-growth-per-day',
        label: 'database growth per day of results',
        unit: 'MB',
        better: 'lower',
        runs: ofReplicas((one) => one.growthBytesPerDay / 1e6),
        baseline: baseline((one) => (one.storedBytes * perDay) / 1e6),
        note: `${perDay.toLocaleString('en-US')} results a day; PostgreSQL: pg_database_size over the window scaled to a day, ${Math.round(median(ofReplicas((one) => one.growthBytesPerResult)))} bytes per result of the window, the slot claims' table included; SQLite: its results' table and index pages per result (dbstat, each check's first results included) times the results a day`,
      },
      {
        id: 'replicas.db-growth-claims-per-day',
        label: 'of which the slot claims (a row per check and location)',
        unit: 'MB',
        better: 'lower',
        runs: ofReplicas((one) => one.claimsGrowthBytesPerDay / 1e6),
        note: `PostgreSQL's slot_claims with its index (pg_total_relation_size) over the window scaled to a day: a row per check and location holding the highest slot claimed, updated in place at every claim and finish`,
      },
      {
        id: 'replicas.claims-bytes-per-check',
        label: 'slot claims per check at the window\'s end',
        unit: 'bytes',
        better: 'lower',
        runs: ofReplicas((one) => one.claimsBytesPerCheck),
        note: `PostgreSQL's slot_claims with its index (pg_total_relation_size) at the window's end over the checks created (one location each): what the claims cost, whatever the number of runs`,
      },
    ];
  },
};

/** The replicas' own figures over the window (service-diagnostics.mjs): the worse replica's of each run. */
function diagnosticFigures(ofReplicas: (pick: (one: ReplicasMeasurement) => number) => number[], note: string): BenchFigure[] {
  const worst = (pick: (one: ServiceDiagnostics) => number) => ofReplicas((one) => Math.max(...one.diagnostics.map(pick)));
  const inside = `${note}; measured inside each replica, the higher of the two`;
  return [
    { id: 'replicas.event-loop-delay-p99', label: "replica's event-loop delay p99", unit: 'ms', better: 'lower', runs: worst((one) => one.eventLoopDelayMs.p99), note: `${inside} (monitorEventLoopDelay, 5 ms resolution)` },
    { id: 'replicas.statement-wait-p99', label: 'wait for a PostgreSQL connection, statements outside a unit (API reads), p99', unit: 'ms', better: 'lower', runs: worst((one) => one.statementWaitMs.p99), note: inside },
    { id: 'replicas.statement-wait-max', label: 'wait for a PostgreSQL connection, statements outside a unit, max', unit: 'ms', better: 'lower', runs: worst((one) => one.statementWaitMs.max), note: inside },
    { id: 'replicas.connections-opened', label: 'PostgreSQL connections opened by the pool', unit: 'connections', better: 'lower', runs: worst((one) => one.openingWaitMs.count), note: `${inside}: a checkout that found no idle connection and waited for a new one` },
    { id: 'replicas.opening-wait-max', label: 'wait for a PostgreSQL connection the pool opened, max', unit: 'ms', better: 'lower', runs: worst((one) => one.openingWaitMs.max), note: inside },
    { id: 'replicas.unit-wait-p99', label: 'wait for a PostgreSQL connection, units of work (scheduled runs), p99', unit: 'ms', better: 'lower', runs: worst((one) => one.unitWaitMs.p99), note: inside },
  ];
}

async function measureReplicas(context: BenchContext, load: Load, clusterDir: string): Promise<ReplicasMeasurement> {
  const statementsLog = process.env['VIGIL_BENCH_REPLICAS_STATEMENTS'] || undefined;
  const postgres = await startEmbeddedPostgres({
    dir: clusterDir,
    port: 0,
    durable: true,
    ...(statementsLog === undefined ? {} : { settings: STATEMENT_SETTINGS, log: (line: string) => appendFileSync(statementsLog, `${line}\n`) }),
  });
  const replicas: ServiceProcess[] = [];
  let target: Awaited<ReturnType<typeof startLoopbackTarget>> | undefined;
  let sizes: pg.Client | undefined;
  try {
    const database = await postgres.createDatabase('vigil');
    // One after the other: the first migrates the empty database, the next finds it migrated.
    const diagnosticsDir = `${clusterDir}-diagnostics`;
    await mkdir(diagnosticsDir, { recursive: true });
    for (let replica = 0; replica < REPLICAS; replica++) replicas.push(await startServiceProcess({ database, scheduler: true, diagnosticsDir }));
    target = await startLoopbackTarget();
    const client = new pg.Client({ connectionString: database });
    sizes = client;
    await client.connect();
    if (statementsLog !== undefined) await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const databaseBytes = async () => {
      const { rows } = await client.query<{ bytes: string; claims: string }>("SELECT pg_database_size(current_database()) AS bytes, pg_total_relation_size('slot_claims') AS claims");
      return { total: Number(rows[0]!.bytes), claims: Number(rows[0]!.claims) };
    };
    const postmaster = postmasterPid(clusterDir);
    const urls = replicas.map((replica) => replica.url);

    context.log(`replicas: creating ${load.checks} API checks every minute and ${load.fastChecks} every 10 s through ${REPLICAS} replicas`);
    const created = await createApiChecks(urls, target.url, planOf(load), ['eu-west-1']);
    // A minute later than the scheduler suite's window: each check's first run writes rows a day of
    // its results pays for once (its reference result, its hour's and day's rollups), which the
    // growth over a window of minutes, scaled to a day, would otherwise count 1,440 times a minute.
    const opening = nextWholeMinutes(load.measuredMinutes);
    const window = { ...opening, from: opening.from + MINUTE_MS, to: opening.to + MINUTE_MS };
    const { from, to } = window;
    context.log(`replicas: measuring ${load.measuredMinutes} minute(s) from ${new Date(from).toISOString()}`);
    await waitUntil(from);
    for (const replica of replicas) signalDiagnostics(replica);
    if (statementsLog !== undefined) await client.query('SELECT pg_stat_statements_reset()');
    const replicaCpuBefore = replicas.map((replica) => cpuMsOf(replica.pid!));
    const postgresCpuBefore = cpuMsOfTree(postmaster);
    const bytesBefore = await databaseBytes();
    const latencies = await probeApiUntil(
      urls,
      created.map((check) => check.id),
      to,
    );
    for (const replica of replicas) signalDiagnostics(replica);
    if (statementsLog !== undefined) {
      const { rows } = await client.query<{ calls: string; mean: number; max: number; total: number; query: string }>(
        `SELECT calls, mean_exec_time AS mean, max_exec_time AS max, total_exec_time AS total, left(regexp_replace(query, '\\s+', ' ', 'g'), 400) AS query
           FROM pg_stat_statements ORDER BY max_exec_time DESC LIMIT 25`,
      );
      appendFileSync(statementsLog, `\n== pg_stat_statements over the window, slowest first (ms)\n${rows.map((row) => `calls ${row.calls} mean ${row.mean.toFixed(2)} max ${row.max.toFixed(1)} total ${row.total.toFixed(0)}: ${row.query}`).join('\n')}\n`);
      context.log(`replicas: statements logged to ${statementsLog}`);
    }
    const replicaCpuMs = replicas.map((replica, index) => cpuMsOf(replica.pid!) - replicaCpuBefore[index]!);
    const postgresCpuMs = cpuMsOfTree(postmaster) - postgresCpuBefore;
    const bytesAfter = await databaseBytes();
    const grownBytes = bytesAfter.total - bytesBefore.total;
    // Runs of the last slots may still be going; give them a moment before counting.
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const diagnostics = await Promise.all(replicas.map((replica) => readDiagnostics(replica, diagnosticsDir, 1)));
    const slots = await readWindowResults(urls, created, window);
    const windowMs = to - from;
    return {
      lagP50: percentile(slots.lags, 50),
      lagP99: percentile(slots.lags, 99),
      missed: slots.missed,
      doubled: slots.doubled,
      notExecuted: slots.notExecuted,
      listP50: percentile(latencies.list, 50),
      listP99: percentile(latencies.list, 99),
      resultsP50: percentile(latencies.results, 50),
      resultsP99: percentile(latencies.results, 99),
      replicaCpuPercent: replicaCpuMs.map((ms) => (100 * ms) / windowMs),
      postgresCpuPercent: (100 * postgresCpuMs) / windowMs,
      growthBytesPerDay: (grownBytes * DAY_MS) / windowMs,
      growthBytesPerResult: grownBytes / Math.max(1, slots.results.length + slots.notExecuted),
      claimsGrowthBytesPerDay: ((bytesAfter.claims - bytesBefore.claims) * DAY_MS) / windowMs,
      claimsBytesPerCheck: bytesAfter.claims / Math.max(1, created.length),
      diagnostics,
    };
  } finally {
    await sizes?.end().catch(() => undefined);
    for (const replica of replicas) await replica.stop();
    target?.child.kill();
    await postgres.stop();
  }
}

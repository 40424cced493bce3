/**
 * What a scheduled run costs on PostgreSQL, per run: the CPU of two `vigil server --database`
 * replicas and of PostgreSQL's process tree (/proc), the statements PostgreSQL ran
 * (pg_stat_statements, every statement of the service's database, periodic ones included), its
 * commits (pg_stat_database) and its WAL (pg_stat_wal), each divided by the runs stored meanwhile (the
 * FINAL results the hourly rollups counted). N API checks every minute against a loopback target,
 * created through both replicas, on one durable embedded PostgreSQL; the window opens a minute after
 * the checks exist (each check's first run, which makes its series, reference and rollup rows, is
 * left out), so it measures the steady state.
 *
 * Not a suite of run.ts: its figure is a change's cost per run, which on a shared machine only a
 * base and the change run side by side can give (each from its own worktree, at the same time):
 *
 *   npx tsx test/bench/cpu-per-run.ts [--checks 1000] [--minutes 5] [--out FILE]
 *
 * It prints one JSON object: the figures per run, and the statements run most often per run. The
 * services run the repository's CLI (its bundle when fresh: build it first, on both sides).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../packages/server/src/store/postgres/embedded.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { cpuMsOf, cpuMsOfTree, createApiChecks, MINUTE_MS, nextWholeMinutes, postmasterPid, startLoopbackTarget, waitUntil } from './lib/scheduled-checks.js';

// Five minutes by default: a window of whole five-minute blocks holds each check's packing of its
// previous block (postgres/packed-results.ts, at its first append in a new block) once, whenever it
// opens; a shorter one counts that work for some of the runs or for none, depending on when it opens.
const { values } = parseArgs({ options: { checks: { type: 'string', default: '1000' }, minutes: { type: 'string', default: '5' }, out: { type: 'string' } } });
const checks = Number(values.checks);
const minutes = Number(values.minutes);

interface Counters {
  runs: number;
  commits: number;
  walBytes: number;
  walSyncs: number | null;
  statements: Map<string, number>;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-cpu-per-run-'));
  if (process.getuid?.() === 0) await import('node:fs/promises').then((fs) => fs.chmod(dir, 0o711));
  const clusterDir = path.join(dir, 'cluster');
  const postgres = await startEmbeddedPostgres({ dir: clusterDir, port: 0, durable: true, settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.max=10000'] });
  const replicas: ServiceProcess[] = [];
  let target: Awaited<ReturnType<typeof startLoopbackTarget>> | undefined;
  // The extension lives in the `postgres` database, so the service's own database holds nothing it did not make; its view covers every database.
  const admin = new pg.Client({ connectionString: postgres.url('postgres') });
  let counting: pg.Client | undefined;
  try {
    const database = await postgres.createDatabase('vigil');
    await admin.connect();
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    for (let replica = 0; replica < 2; replica++) replicas.push(await startServiceProcess({ database, scheduler: true }));
    target = await startLoopbackTarget();
    counting = new pg.Client({ connectionString: database });
    await counting.connect();
    const client = counting;
    // Fifty at a time, each batch tried again when a replica answers 500: on a loaded machine a create
    // can time out waiting for a connection while the first checks already run. A batch tried again
    // may make a few checks more; every figure is per run stored, whatever the number of checks.
    const created = [];
    for (let made = 0; made < checks; made += 50) {
      for (let attempt = 1; ; attempt++) {
        try {
          created.push(...(await createApiChecks(replicas.map((replica) => replica.url), target.url, Array.from({ length: Math.min(50, checks - made) }, () => ({ frequency: 1, perMinute: 1 })), ['eu-west-1'])));
          break;
        } catch (error) {
          if (attempt === 20) throw error;
          process.stderr.write(`cpu-per-run: creating checks failed (${String(error)}); trying again\n`);
          await new Promise((resolve) => setTimeout(resolve, 2_000));
        }
      }
    }
    const opening = nextWholeMinutes(minutes);
    const from = opening.from + MINUTE_MS;
    const to = from + minutes * MINUTE_MS;
    process.stderr.write(`cpu-per-run: ${created.length} checks; measuring ${minutes} minute(s) from ${new Date(from).toISOString()}\n`);
    const postmaster = postmasterPid(clusterDir);
    const counters = async (): Promise<Counters> => {
      const runs = Number((await client.query<{ runs: string | null }>('SELECT sum(results) AS runs FROM result_rollups_hourly')).rows[0]!.runs ?? 0);
      const stats = (await admin.query<{ commits: string }>("SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = 'vigil'")).rows[0]!;
      const wal = (await admin.query<Record<string, string>>('SELECT * FROM pg_stat_wal')).rows[0]!;
      const statements = new Map<string, number>();
      const { rows } = await admin.query<{ query: string; calls: string }>("SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'vigil')");
      for (const row of rows) statements.set(row.query, (statements.get(row.query) ?? 0) + Number(row.calls));
      return { runs, commits: Number(stats.commits), walBytes: Number(wal['wal_bytes']), walSyncs: wal['wal_sync'] === undefined ? null : Number(wal['wal_sync']), statements };
    };
    await waitUntil(from);
    const replicaCpuBefore = replicas.map((replica) => cpuMsOf(replica.pid!));
    const postgresCpuBefore = cpuMsOfTree(postmaster);
    const before = await counters();
    await waitUntil(to);
    const replicaCpuMs = replicas.reduce((sum, replica, index) => sum + cpuMsOf(replica.pid!) - replicaCpuBefore[index]!, 0);
    const postgresCpuMs = cpuMsOfTree(postmaster) - postgresCpuBefore;
    const after = await counters();
    const runs = after.runs - before.runs;
    const perRun = (value: number) => Math.round((value / runs) * 1000) / 1000;
    const statements = [...after.statements].map(([query, calls]) => ({ query: query.replace(/\s+/g, ' ').slice(0, 160), calls: calls - (before.statements.get(query) ?? 0) })).filter((one) => one.calls > 0);
    statements.sort((a, b) => b.calls - a.calls);
    const totalStatements = statements.reduce((sum, one) => sum + one.calls, 0);
    const report = {
      checks,
      minutes,
      runs,
      loadAverage: os.loadavg()[0],
      perRun: {
        replicasCpuMs: perRun(replicaCpuMs),
        postgresCpuMs: perRun(postgresCpuMs),
        statements: perRun(totalStatements),
        commits: perRun(after.commits - before.commits),
        walBytes: perRun(after.walBytes - before.walBytes),
        walSyncs: after.walSyncs === null || before.walSyncs === null ? null : perRun(after.walSyncs - before.walSyncs),
      },
      statementsPerRun: statements.slice(0, 40).map((one) => ({ perRun: perRun(one.calls), query: one.query })),
    };
    const text = JSON.stringify(report, null, 2);
    if (values.out) await writeFile(values.out, `${text}\n`);
    process.stdout.write(`${text}\n`);
  } finally {
    await counting?.end().catch(() => undefined);
    await admin.end().catch(() => undefined);
    for (const replica of replicas) await replica.stop();
    target?.child.kill();
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

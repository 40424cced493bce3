/**
 * `vigil server migrate-data` on a SQLite database of 100,000 raw results (100 checks, a run a minute
 * each over about 17 hours, so two UTC days, results stored by the SQLite port as a server stores them),
 * copied into an empty database of the embedded PostgreSQL from npm on loopback, durable (fsync on):
 * the rate the results are copied at (rows a second, the copy's one transaction included, its rollups
 * and references not), and the whole command's wall time. Quick runs use 20,000 results.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../../../packages/server/src/store/index.js';
import { migrateData } from '../../../packages/server/src/store/postgres/from-sqlite/index.js';
import type { CheckResultDocument } from '../../../packages/server/src/store/ports.js';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import { type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const CHECKS = 100;
const START_MS = Date.UTC(2026, 10, 24, 12);

function result(checkId: string, at: number, failing: boolean): CheckResultDocument {
  return {
    id: randomUUID(), checkId, name: 'Homepage', hasFailures: failing, hasErrors: false, isDegraded: false,
    runLocation: at % 2 === 0 ? 'eu-west-1' : 'us-east-1', created_at: new Date(at).toISOString(), startedAt: new Date(at - 40).toISOString(),
    resultType: 'FINAL', attempts: 1, responseTime: 40 + (at % 13),
    apiCheckResult: { response: { status: failing ? 500 : 200, body: failing ? 'oops' : '{"status":"ok"}', timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } }, requestError: null },
  };
}

async function fillSqlite(file: string, results: number): Promise<void> {
  const ports = sqlitePorts(new Store({ file }));
  try {
    const runs = results / CHECKS;
    for (let run = 0; run < runs; run += 1) {
      const at = START_MS + run * 60_000;
      await Promise.all(Array.from({ length: CHECKS }, (_, check) => ports.checkResults.appendRun('acc', [result(`check-${check}`, at + check, run % 97 === 0)])));
    }
  } finally {
    await ports.close();
  }
}

export const suite: BenchSuite = {
  name: 'migrate-data',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const results = context.full ? 100_000 : 20_000;
    const file = path.join(context.tmpDir, 'migrate-source.db');
    await fillSqlite(file, results);
    // A directory of its own: as root, PostgreSQL's own user must be able to pass through it.
    const pgDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-pg-'));
    const postgres = await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: true });
    const rates: number[] = [];
    const walls: number[] = [];
    try {
      for (let run = 0; run < context.runs; run += 1) {
        const to = await postgres.createDatabase(`migrate_${run}`);
        const report = await migrateData({ from: file, to });
        if (report.results.rows !== results) throw new Error(`migrate-data: copied ${report.results.rows} results, not ${results}`);
        rates.push(report.results.rows / (report.results.ms / 1000));
        walls.push(report.ms / 1000);
      }
    } finally {
      await postgres.stop();
      await rm(pgDir, { recursive: true, force: true });
    }
    const note = `${results.toLocaleString('en-US')} results of ${CHECKS} checks, SQLite file to embedded PostgreSQL (durable) on loopback, one transaction`;
    return [
      { id: 'migrate-data.results-rate', label: 'migrate-data: raw results copied', unit: 'rows/s', better: 'higher', runs: rates, note },
      { id: 'migrate-data.wall', label: 'migrate-data: whole command (schema, checks, copy, counts)', unit: 's', better: 'lower', runs: walls, note },
    ];
  },
};

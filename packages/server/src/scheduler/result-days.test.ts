import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { DAY_MS } from '../store/port-rules.js';
import type { StoragePorts } from '../store/ports.js';
import { partitionName } from '../store/postgres/check-results.js';
import { openPostgresPorts } from '../store/postgres/index.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { DAYS_AHEAD, PREPARE_EVERY_MS, PREPARE_RESULT_DAYS_JOB, ResultDayPreparation } from './result-days.js';

const postgres = useTestPostgres();
const NOW = Date.UTC(2026, 10, 27, 23, 30);
const TODAY = Date.UTC(2026, 10, 27);
const open: StoragePorts[] = [];
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-result-days-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((ports) => ports.close()));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function preparation(ports: StoragePorts, owner: string): ResultDayPreparation {
  return new ResultDayPreparation({ checkResults: ports.checkResults, periodicJobs: ports.periodicJobs, owner });
}

async function partitionsOf(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_results'::regclass ORDER BY 1`,
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('preparing the days of results ahead on PostgreSQL', () => {
  it('makes the partitions of today and the next days at the one turn two replicas share per period', async () => {
    const connectionString = await postgres.freshDatabase();
    const a = await openPostgresPorts({ connectionString });
    const b = await openPostgresPorts({ connectionString });
    open.push(a, b);
    expect(await partitionsOf(connectionString)).toEqual([]);

    expect(await preparation(a, 'replica-a').takeTurn(NOW)).toBe(true);
    const expected = Array.from({ length: DAYS_AHEAD + 1 }, (_, i) => partitionName(TODAY + i * DAY_MS));
    expect(expected).toEqual(['check_results_p20261127', 'check_results_p20261128', 'check_results_p20261129', 'check_results_p20261130']);
    expect(await partitionsOf(connectionString)).toEqual(expected);

    const other = preparation(b, 'replica-b');
    expect(await other.takeTurn(NOW + 1000)).toBe(false);
    expect(await a.periodicJobs.lastRun(PREPARE_RESULT_DAYS_JOB)).toEqual({ atMs: NOW, owner: 'replica-a' });
    // A day on, the other replica's turn adds the day that came into reach.
    expect(await other.takeTurn(NOW + DAY_MS)).toBe(true);
    expect(await partitionsOf(connectionString)).toEqual([...expected, partitionName(TODAY + (DAYS_AHEAD + 1) * DAY_MS)]);
  });
});

describe('preparing the days of results on SQLite', () => {
  it('takes its turn once per period and has nothing to make', async () => {
    const ports = sqlitePorts(new Store({ file: path.join(dir, 'days.db') }));
    open.push(ports);
    const days = preparation(ports, 'replica-a');
    expect(await days.takeTurn(NOW)).toBe(true);
    // Not asked again within the period, by this process.
    expect(await days.takeTurn(NOW + PREPARE_EVERY_MS - 1)).toBe(false);
    expect(await ports.periodicJobs.lastRun(PREPARE_RESULT_DAYS_JOB)).toEqual({ atMs: NOW, owner: 'replica-a' });
    expect(await days.takeTurn(NOW + PREPARE_EVERY_MS)).toBe(true);
  });
});

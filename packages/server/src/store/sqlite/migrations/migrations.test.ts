import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../database.js';
import { Store } from '../../index.js';
import { migrateSqlite, SCHEMA_SCOPE, SQLITE_STEPS, stepNumberOf, type SqliteStep } from './index.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'per-scope-75ba04a.db.gz');

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-migrations-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every table, index and trigger with its SQL, by name: what two databases must agree on. */
function schemaOf(db: SqliteDatabase): unknown[] {
  return db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY name").all();
}

function freshSchema(): unknown[] {
  const store = new Store(':memory:');
  try {
    return schemaOf(store.db);
  } finally {
    store.close();
  }
}

/** Every row of every table but the migration records, in a stable order. */
/** Every table's rows; `columnsOf` names the columns to read of some tables (the others: all). */
function contentsOf(db: SqliteDatabase, columnsOf: Record<string, string[]> = {}): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'migrations' ORDER BY name").pluck().all() as string[];
  const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value))).sort();
  const columns = (table: string) => columnsOf[table]?.map((column) => `"${column}"`).join(', ') ?? '*';
  return Object.fromEntries(tables.map((table) => [table, sorted(db.prepare(`SELECT ${columns(table)} FROM "${table}"`).all())]));
}

function columnsOf(db: SqliteDatabase): Record<string, string[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'migrations'").pluck().all() as string[];
  return Object.fromEntries(tables.map((table) => [table, (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[])]));
}

/** The steps that existed when each module numbered its own. */
const LEGACY_STEPS = SQLITE_STEPS.filter((step) => step.was !== undefined);

function schemaRows(db: SqliteDatabase): Array<{ version: number; name: string; applied_at: string }> {
  return db.prepare('SELECT version, name, applied_at FROM migrations WHERE scope = ? ORDER BY version').all(SCHEMA_SCOPE) as Array<{ version: number; name: string; applied_at: string }>;
}

/**
 * The old runner's way (store/database.ts before the one list): each module's steps under its
 * scope, each in a transaction with its row, scope by scope in the order a server started them.
 */
function migrateAsBefore(db: SqliteDatabase, steps: readonly SqliteStep[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS migrations (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`);
  const record = db.prepare('INSERT INTO migrations (scope, version, name, applied_at) VALUES (?, ?, ?, ?)');
  for (const scope of new Set(steps.map((step) => step.was!.scope))) {
    for (const step of steps.filter((candidate) => candidate.was!.scope === scope)) {
      db.transaction(() => {
        step.up(db);
        record.run(scope, step.was!.version, step.name, new Date().toISOString());
      })();
    }
  }
}

describe('the one list of SQLite steps', () => {
  it('is numbered 1..n in order, and each step that had a scope names a (scope, version) no other step names', () => {
    expect(SQLITE_STEPS.map((step) => step.step)).toEqual(SQLITE_STEPS.map((_, index) => index + 1));
    const legacy = SQLITE_STEPS.filter((step) => step.was).map((step) => `${step.was!.scope}/${step.was!.version}`);
    expect(new Set(legacy).size).toBe(legacy.length);
    expect(stepNumberOf({ scope: 'core', version: 6 })).toBe(6);
    expect(stepNumberOf({ scope: 'readside', version: 1 })).toBe(10);
    expect(() => stepNumberOf({ scope: 'readside', version: 99 })).toThrow('no SQLite step was readside 99; this is a bug in vigil');
  });

  it('records each step once, however often the database is opened', () => {
    const dir = tempDir();
    new Store(dir).close();
    const store = new Store(dir);
    expect(schemaRows(store.db).map((row) => [row.version, row.name])).toEqual(SQLITE_STEPS.map((step) => [step.step, step.name]));
    expect(store.db.prepare('SELECT COUNT(*) FROM migrations WHERE scope <> ?').pluck().get(SCHEMA_SCOPE)).toBe(0);
    store.close();
  });

  it('applies only the steps a database has not recorded, and rolls a failing step back with its record', () => {
    const db = openDatabase(':memory:');
    const runs: number[] = [];
    const step = (number: number, fail = false): SqliteStep => ({
      step: number,
      name: `step ${number}`,
      up: (target) => {
        runs.push(number);
        target.exec(`CREATE TABLE t${number} (x)`);
        if (fail) throw new Error(`step ${number} failed`);
      },
    });
    migrateSqlite(db, {}, [step(1)]);
    migrateSqlite(db, {}, [step(1), step(2)]);
    expect(runs).toEqual([1, 2]);
    expect(() => migrateSqlite(db, {}, [step(1), step(2), step(3, true)])).toThrow('step 3 failed');
    expect(schemaRows(db).map((row) => row.version)).toEqual([1, 2]);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 't3'").pluck().get()).toBe(0);
    db.close();
  });

  it('stops after the step asked for, and goes on from there when opened again', () => {
    const dir = tempDir();
    new Store(dir, { through: 6 }).close();
    const early = openDatabase({ dir });
    expect(schemaRows(early).map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
    early.close();
    const store = new Store(dir);
    expect(schemaRows(store.db)).toHaveLength(SQLITE_STEPS.length);
    expect(schemaOf(store.db)).toEqual(freshSchema());
    store.close();
  });
});

describe('step 40, slot claims as one mark per check and location', () => {
  it("keeps each check and location's highest claimed slot and highest finished one, and drops the row a slot", () => {
    const dir = tempDir();
    const old = new Store(dir, { through: 39 });
    const insert = old.db.prepare('INSERT INTO scheduled_runs (account_id, slot_key, check_id, due_ms, location, claimed_ms, finished_ms) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const claimed = (checkId: string, dueMs: number, location: string, finishedMs: number | null) => insert.run('acc', `${checkId}@${dueMs}@${location}`, checkId, dueMs, location, dueMs + 5, finishedMs);
    claimed('c1', 1000, 'eu', 1100);
    claimed('c1', 2000, 'eu', 2100);
    claimed('c1', 3000, 'eu', null);
    claimed('c1', 2000, 'us', null);
    old.close();
    const store = new Store(dir);
    expect(store.db.prepare('SELECT check_id, location, due_ms, claimed_ms, prior_due_ms, finished_due_ms, finished_ms FROM slot_claims ORDER BY check_id, location').all()).toEqual([
      { check_id: 'c1', location: 'eu', due_ms: 3000, claimed_ms: 3005, prior_due_ms: null, finished_due_ms: 2000, finished_ms: 2100 },
      { check_id: 'c1', location: 'us', due_ms: 2000, claimed_ms: 2005, prior_due_ms: null, finished_due_ms: null, finished_ms: null },
    ]);
    expect(store.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'scheduled_runs'").pluck().get()).toBe(0);
    store.close();
  });
});

describe('a database made when each module numbered its own steps', () => {
  it('opened with the one list has the schema of a fresh database, all its rows, and ran no step again', () => {
    const file = path.join(tempDir(), 'vigil.db');
    writeFileSync(file, gunzipSync(readFileSync(FIXTURE)), { mode: 0o600 });
    const old = openDatabase({ file });
    const before = contentsOf(old);
    const oldColumns = columnsOf(old);
    const legacyRows = old.prepare('SELECT scope, version, applied_at FROM migrations').all() as Array<{ scope: string; version: number; applied_at: string }>;
    old.close();
    // The fixture is from a server that had every scope, so every step that had one is adopted.
    expect(legacyRows).toHaveLength(LEGACY_STEPS.length);

    const store = new Store({ file });
    expect(schemaOf(store.db)).toEqual(freshSchema());
    const after = contentsOf(store.db);
    // Every table it had holds what it held, in the columns it had (later steps add some); tables of
    // later steps are new and empty.
    // Step 40 replaced the claimed slots' table (empty in the fixture) by the claim marks'.
    const afterInOldColumns = contentsOf(store.db, oldColumns);
    expect(Object.keys(before).filter((table) => !(table in after))).toEqual(['scheduled_runs']);
    const kept = Object.keys(before).filter((table) => table in after);
    expect(Object.fromEntries(kept.map((table) => [table, afterInOldColumns[table]]))).toEqual(Object.fromEntries(kept.map((table) => [table, before[table]])));
    // No watch ever ran on it (no ping cursor): its pings are not handed out to become results.
    expect(store.db.prepare('SELECT COUNT(*) FROM heartbeat_events WHERE pending = 1').pluck().get()).toBe(0);
    expect(Object.entries(after).filter(([table, rows]) => !(table in before) && rows.length > 0)).toEqual([]);
    // Each step is recorded under its number with the time it really ran: adopted, not run again.
    const appliedAt = new Map(legacyRows.map((row) => [`${row.scope}/${row.version}`, row.applied_at]));
    const recorded = schemaRows(store.db);
    expect(recorded.map((row) => row.version)).toEqual(SQLITE_STEPS.map((step) => step.step));
    expect(recorded.filter((row) => row.version <= LEGACY_STEPS.length)).toEqual(
      LEGACY_STEPS.map((step) => ({ version: step.step, name: step.name, applied_at: appliedAt.get(`${step.was!.scope}/${step.was!.version}`) })),
    );
    // The old records stay, so the history of the database is kept.
    expect(store.db.prepare('SELECT COUNT(*) FROM migrations WHERE scope <> ?').pluck().get(SCHEMA_SCOPE)).toBe(legacyRows.length);
    store.close();

    // And a second open finds nothing to do.
    const again = new Store({ file });
    expect(schemaRows(again.db)).toHaveLength(SQLITE_STEPS.length);
    expect(contentsOf(again.db)).toEqual(after);
    again.close();
  });

  it('that some scopes had not reached gets their missing steps, after later steps of other scopes', () => {
    const dir = tempDir();
    const old = openDatabase({ dir });
    // An older server: alerting without outbox leases, read side before compact results, no
    // heartbeats, dashboards or anything later.
    const recorded = LEGACY_STEPS.filter(
      (step) => step.was!.scope === 'core' || (step.was!.scope === 'alerting' && step.was!.version <= 2) || (step.was!.scope === 'readside' && step.was!.version <= 4),
    );
    migrateAsBefore(old, recorded);
    old.prepare("INSERT INTO alert_states (account_id, check_id, doc) VALUES ('acme', 'c1', '{}')").run();
    old.close();

    const store = new Store(dir);
    expect(schemaOf(store.db)).toEqual(freshSchema());
    const rows = schemaRows(store.db);
    expect(rows.map((row) => row.version)).toEqual(SQLITE_STEPS.map((step) => step.step));
    // Step 9 (alerting 3) ran now, as did everything after readside 4; the adopted ones kept their time.
    const ranNow = rows.filter((row) => !recorded.some((step) => step.step === row.version)).map((row) => row.version);
    expect(ranNow).toEqual([9, ...SQLITE_STEPS.filter((step) => step.step > stepNumberOf({ scope: 'readside', version: 4 })).map((step) => step.step)]);
    expect(store.db.prepare('SELECT check_id, lease_owner FROM alert_states LEFT JOIN alert_notifications USING (check_id)').all()).toEqual([{ check_id: 'c1', lease_owner: null }]);
    store.close();
  });
});

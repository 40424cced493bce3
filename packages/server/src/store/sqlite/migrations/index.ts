/**
 * The SQLite schema as one numbered list of steps, and the runner that brings a database up to it.
 *
 * Each step runs in its own transaction together with its `migrations` row (scope `schema`,
 * version = the step's number), so a crash mid-migration leaves no half-applied step. A database
 * made while each module numbered its own steps (rows with scope `core`, `alerting`, `readside`, …)
 * is first adopted: every step whose old (scope, version) it recorded is recorded under its number
 * (the old rows stay), so no step runs twice, and the steps it lacks then run in list order.
 */
import type { SqliteDatabase } from '../../database.js';
import { AGENT_STEPS } from './agents.js';
import { ALERTING_STEPS } from './alerting.js';
import { CHECK_STATE_STEPS } from './check-states.js';
import { CORE_STEPS } from './core.js';
import { READSIDE_STEPS } from './readside.js';
import { REPLICA_STEPS } from './replicas.js';
import { RESULT_STEPS } from './results.js';
import { SERVICE_STEPS } from './services.js';
import { STATE_LOCK_STEPS } from './state-locks.js';
import type { LegacyStep, SqliteStep } from './step.js';

export type { LegacyStep, SqliteStep } from './step.js';

/** The `migrations.scope` of the steps of the one list. */
export const SCHEMA_SCOPE = 'schema';

/**
 * In order. Core comes first because later steps use its tables (the read side's step 13 writes
 * `id_floors`, the heartbeats' step 19 indexes `checks.check_type`).
 */
export const SQLITE_STEPS: readonly SqliteStep[] = [...CORE_STEPS, ...ALERTING_STEPS, ...READSIDE_STEPS, ...SERVICE_STEPS, ...AGENT_STEPS, ...STATE_LOCK_STEPS, ...CHECK_STATE_STEPS, ...REPLICA_STEPS, ...RESULT_STEPS];

checkNumbering(SQLITE_STEPS);

function checkNumbering(steps: readonly SqliteStep[]): void {
  steps.forEach((step, index) => {
    if (step.step !== index + 1) throw new Error(`SQLite step "${step.name}" is numbered ${step.step} at position ${index + 1}; this is a bug in vigil`);
  });
}

/** The number a step recorded as (scope, version) before the one list has (for tests building old databases). */
export function stepNumberOf(legacy: LegacyStep): number {
  const found = SQLITE_STEPS.find((step) => step.was?.scope === legacy.scope && step.was.version === legacy.version);
  if (!found) throw new Error(`no SQLite step was ${legacy.scope} ${legacy.version}; this is a bug in vigil`);
  return found.step;
}

export interface MigrateOptions {
  /** Stop after this step: for tests that build a database as an older vigil left it. */
  readonly through?: number;
}

/** Creates the `migrations` table if needed, adopts per-scope records, and applies the missing steps. */
export function migrateSqlite(db: SqliteDatabase, options: MigrateOptions = {}, steps: readonly SqliteStep[] = SQLITE_STEPS): void {
  db.exec(`CREATE TABLE IF NOT EXISTS migrations (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`);
  const recorded = db.prepare('SELECT scope, version, applied_at AS appliedAt FROM migrations').all() as Array<{ scope: string; version: number; appliedAt: string }>;
  const applied = new Set(recorded.filter((row) => row.scope === SCHEMA_SCOPE).map((row) => row.version));
  const legacy = new Map(recorded.filter((row) => row.scope !== SCHEMA_SCOPE).map((row) => [`${row.scope}/${row.version}`, row.appliedAt]));
  const record = db.prepare('INSERT INTO migrations (scope, version, name, applied_at) VALUES (?, ?, ?, ?)');

  const adopted = steps.filter((step) => !applied.has(step.step) && step.was && legacy.has(`${step.was.scope}/${step.was.version}`));
  if (adopted.length > 0) {
    db.transaction(() => {
      for (const step of adopted) {
        // The old row's time: when the step really ran.
        record.run(SCHEMA_SCOPE, step.step, step.name, legacy.get(`${step.was!.scope}/${step.was!.version}`));
        applied.add(step.step);
      }
    })();
  }

  for (const step of steps) {
    if (applied.has(step.step) || (options.through !== undefined && step.step > options.through)) continue;
    db.transaction(() => {
      step.up(db);
      record.run(SCHEMA_SCOPE, step.step, step.name, new Date().toISOString());
    })();
  }
}

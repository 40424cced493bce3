import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../database.js';
import { migrateSqlite } from './index.js';

const open: SqliteDatabase[] = [];
afterEach(() => open.splice(0).forEach((db) => db.close()));

describe('step 30: check statuses keep their state', () => {
  it('gives the statuses stored before it their state, and lists a state through its index', () => {
    const db = openDatabase(':memory:');
    open.push(db);
    migrateSqlite(db, { through: 29 });
    const insert = db.prepare('INSERT INTO check_statuses (account_id, check_id, doc) VALUES (?, ?, ?)');
    const status = (fields: Record<string, unknown>) => JSON.stringify({ hasFailures: false, hasErrors: false, isDegraded: false, ...fields });
    insert.run('a', 'passing', status({}));
    insert.run('a', 'failed', status({ hasFailures: true, isDegraded: true }));
    insert.run('a', 'errored', status({ hasErrors: true }));
    insert.run('a', 'degraded', status({ isDegraded: true }));
    // Statuses written before isDegraded existed, or with null where a boolean belongs.
    insert.run('a', 'old', JSON.stringify({ hasFailures: false, hasErrors: null }));
    migrateSqlite(db);
    const states = Object.fromEntries((db.prepare('SELECT check_id, state FROM check_statuses').raw().all() as Array<[string, string]>).map(([id, state]) => [id, state]));
    expect(states).toEqual({ passing: 'passing', failed: 'failing', errored: 'failing', degraded: 'degraded', old: 'passing' });
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT check_id FROM check_statuses WHERE account_id = 'a' AND state = 'failing'").all() as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join('\n')).toContain('check_statuses_account_state');
  });
});

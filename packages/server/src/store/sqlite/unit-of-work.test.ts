/**
 * SQLite's units of work inside the group commit (store.ts `unitOfWork`): what the contract suite
 * cannot see from the ports, the synchronous writers of the same connection around a unit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from './store.js';
import { sqlitePorts } from './index.js';

const stores: Store[] = [];
function openStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}
const dirs: string[] = [];
/** Two `Store`s on one file, as replicas in one process (the contract suite, the watches' tests). */
function twoConnectionsToOneFile(): [Store, Store] {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-units-'));
  dirs.push(dir);
  const file = path.join(dir, 'vigil.db');
  const first = new Store({ file });
  stores.push(first);
  const second = new Store({ file });
  stores.push(second);
  return [first, second];
}
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const names = (store: Store): unknown[] => store.checkGroups.all('acc').map((group) => group['name']);

describe('units of work on SQLite', () => {
  it('commits a synchronous write of the same turn while a unit beside it rolls back', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    const unit = ports.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'unit' }));
      throw new Error('unit failed');
    });
    const { committed } = store.writeBatched(() => store.checkGroups.insert('acc', (id) => ({ id, name: 'sync' })));
    await expect(unit).rejects.toThrow('unit failed');
    await committed;
    expect(names(store)).toEqual(['sync']);
  });

  it('holds the group commit while a unit awaits a timer, and commits a write that joined it once the unit succeeds', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    let joined: Promise<void> | undefined;
    const unit = ports.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'unit' }));
      await sleep(20);
      // The turn's commit came due during the timer and waits: the transaction is still open.
      expect(store.db.inTransaction).toBe(true);
      joined = store.writeBatched(() => store.checkGroups.insert('acc', (id) => ({ id, name: 'joined' }))).committed;
      await sleep(20);
      return 'ok';
    });
    expect(await unit).toBe('ok');
    await joined;
    expect(store.db.inTransaction).toBe(false);
    expect(names(store)).toEqual(['unit', 'joined']);
  });

  it('fails a write that joined a unit which then rolls back, never answering it as committed', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    let joined: Promise<void> | undefined;
    const unit = ports.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'unit' }));
      await sleep(20);
      joined = store.writeBatched(() => store.checkGroups.insert('acc', (id) => ({ id, name: 'joined' }))).committed;
      throw new Error('unit failed');
    });
    await expect(unit).rejects.toThrow('unit failed');
    await expect(joined).rejects.toThrow('a unit of work that other writes had joined was rolled back, and their group commit with it');
    expect(names(store)).toEqual([]);
    // The connection is usable again: the next write commits.
    await store.writeBatched(() => store.checkGroups.insert('acc', (id) => ({ id, name: 'after' }))).committed;
    expect(names(store)).toEqual(['after']);
  });

  it('refuses a write through a unit\'s ports after the unit ended', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    const kept = await ports.transaction(async (tx) => tx);
    await expect(kept.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'late' }))).rejects.toThrow(
      'a port of a unit of work was used after the unit ended; this is a bug in vigil',
    );
    expect(names(store)).toEqual([]);
  });

  it('lets a port write of another connection to the file, made while a unit holds the write lock, wait for its commit instead of busy-waiting on the thread', async () => {
    const [first, second] = twoConnectionsToOneFile();
    const [unitPorts, otherPorts] = [sqlitePorts(first), sqlitePorts(second)];
    let other: Promise<void> | undefined;
    await unitPorts.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'before' }));
      // Another promise chain of this turn writes through the other connection between the unit's awaits.
      other = otherPorts.heartbeatDeadlines.watch({ accountId: 'acc', checkId: 'c1', periodMs: 60_000, graceMs: 0, anchorMs: 1_000 });
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'after' }));
    });
    await expect(other).resolves.toBeUndefined();
    expect(names(second)).toEqual(['before', 'after']);
    expect(second.db.prepare('SELECT check_id FROM heartbeat_timings').pluck().all()).toEqual(['c1']);
  });

  it('starts a unit once another connection to the file has committed the group its synchronous writes opened', async () => {
    const [first, second] = twoConnectionsToOneFile();
    const { committed } = second.writeBatched(() => second.checkGroups.insert('acc', (id) => ({ id, name: 'batched' })));
    const unit = sqlitePorts(first).transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'unit' }));
      return 'ok';
    });
    expect(await unit).toBe('ok');
    await committed;
    expect(names(first)).toEqual(['batched', 'unit']);
  });
});

describe('a write that fails inside a unit on SQLite', () => {
  const AT = Date.UTC(2026, 10, 27, 12);
  const heartbeatResult = (id: string) => ({
    id, checkId: 'chk', name: 'nightly backup', hasFailures: false, hasErrors: false, isDegraded: false, runLocation: 'eu-west-1',
    created_at: new Date(AT).toISOString(), startedAt: new Date(AT).toISOString(), resultType: 'FINAL', attempts: 1, responseTime: 0,
  });
  const stored = (store: Store, table: string): number => (store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number);

  it('fails the unit with its error when it had changed rows, even though the work caught it, and leaves none of them', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    // The result's row goes in, then its rollup's insert fails: half a write.
    store.db.exec(`CREATE TEMP TRIGGER refuse_rollup BEFORE INSERT ON result_rollups_hourly BEGIN SELECT RAISE(ABORT, 'rollup refused'); END`);
    const unit = ports.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'unit' }));
      await tx.checkResults.appendKept('acc', heartbeatResult('r-1')).catch(() => false);
      return 'caught';
    });
    await expect(unit).rejects.toThrow('rollup refused');
    expect(names(store)).toEqual([]);
    expect(stored(store, 'check_results')).toBe(0);
  });

  it('lets the unit go on after a write refused before it changed anything, and undoes only what a failed savepoint wrote', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    // Refused at the write's first statement: nothing of it was changed.
    store.db.exec(`CREATE TEMP TRIGGER refuse_status BEFORE INSERT ON check_statuses BEGIN SELECT RAISE(ABORT, 'status refused'); END`);
    store.db.exec(`CREATE TEMP TRIGGER refuse_rollup BEFORE INSERT ON result_rollups_hourly BEGIN SELECT RAISE(ABORT, 'rollup refused'); END`);
    const outcome = await ports.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'kept' }));
      const refused = await tx.checkStatuses.record('acc', { checkId: 'chk', name: 'nightly backup', hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 0, runLocation: 'eu-west-1', checkRunId: 1, stoppedAt: new Date(AT).toISOString() }).then(
        () => 'recorded',
        (error: Error) => error.message,
      );
      // A write that changed rows and failed inside a savepoint fails that savepoint only.
      const inSavepoint = await tx
        .savepoint(async () => {
          await tx.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'undone' }));
          await tx.checkResults.appendKept('acc', heartbeatResult('r-2')).catch(() => false);
          return 'caught';
        })
        .catch((error: Error) => error.message);
      return { refused, inSavepoint };
    });
    expect(outcome).toEqual({ refused: 'status refused', inSavepoint: 'rollup refused' });
    expect(names(store)).toEqual(['kept']);
    expect(stored(store, 'check_results')).toBe(0);
  });
});

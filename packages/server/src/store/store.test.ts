import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { uuidV7 } from './sqlite/collection.js';
import { openDatabase } from './database.js';
import { Store } from './index.js';
import { migrateSqlite } from './sqlite/migrations/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Store', () => {
  it('opens an exact database file when given one, creating its directory', () => {
    const file = path.join(tempDir(), '.vigil', 'local.db');
    const store = new Store({ file });
    store.checks.insert('acme', (id) => ({ id }));
    store.close();
    const reopened = new Store({ file });
    expect(reopened.checks.all('acme')).toHaveLength(1);
    reopened.close();
  });

  it('uses WAL journaling for a data directory', () => {
    const store = new Store(tempDir());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    store.close();
  });

  it('keeps what was written across a close and reopen of the same directory', () => {
    const dir = tempDir();
    const first = new Store(dir);
    const check = first.checks.insert('acme', (id) => ({ id, name: 'kept' }));
    const group = first.checkGroups.insert('acme', (id) => ({ id, name: 'group' }));
    first.close();
    const second = new Store(dir);
    expect(second.checks.get('acme', check.id)).toEqual({ id: check.id, name: 'kept' });
    expect(second.checkGroups.get('acme', group.id)).toEqual({ id: 1, name: 'group' });
    second.close();
  });

  it('never hands out the integer id of a deleted resource again, even after a restart', () => {
    const dir = tempDir();
    const first = new Store(dir);
    first.checkGroups.insert('acme', (id) => ({ id }));
    const second = first.checkGroups.insert('acme', (id) => ({ id }));
    first.checkGroups.remove('acme', second.id);
    first.close();
    const reopened = new Store(dir);
    expect(reopened.checkGroups.insert('acme', (id) => ({ id })).id).toBe(3);
    reopened.close();
  });

  it('pages in insertion order and counts only the account’s own documents', () => {
    const store = new Store(':memory:');
    for (let i = 0; i < 5; i += 1) {
      store.maintenanceWindows.insert('acme', (id) => ({ id, n: i }));
      store.maintenanceWindows.insert('globex', (id) => ({ id, n: -i }));
    }
    const page = store.maintenanceWindows.page('acme', { limit: 2, page: 2 });
    expect(page.total).toBe(5);
    expect(page.items.map((doc) => doc['n'])).toEqual([2, 3]);
    expect(store.maintenanceWindows.page('acme', { limit: 2, page: 4 })).toEqual({ items: [], total: 5 });
    // Integer ids are counted per account: the same number reads each account's own document.
    expect(store.maintenanceWindows.get('globex', page.items[0]!.id)).toEqual({ id: 3, n: -2 });
    store.close();
  });

  it('pages deep into a large collection exactly as a slice of it, also after writes between reads', () => {
    const store = new Store(':memory:');
    const expected: number[] = [];
    for (let n = 0; n < 3000; n += 1) {
      const doc = store.maintenanceWindows.insert('acme', (id) => ({ id, n }));
      store.maintenanceWindows.insert('globex', (id) => ({ id, n }));
      // Gaps in seq, so a page start cannot be computed from its position.
      if (n % 7 === 3) store.maintenanceWindows.remove('acme', doc.id);
      else expected.push(n);
    }
    const pageOf = (page: number, limit = 100) => store.maintenanceWindows.page('acme', { limit, page });
    const numbers = (page: number, limit = 100) => pageOf(page, limit).items.map((doc) => doc['n']);
    const pages = Math.ceil(expected.length / 100);
    for (let page = 1; page <= pages; page += 1) expect(numbers(page)).toEqual(expected.slice((page - 1) * 100, page * 100));
    expect(pageOf(pages + 1)).toEqual({ items: [], total: expected.length });
    expect(numbers(23, 97)).toEqual(expected.slice(22 * 97, 23 * 97));
    const rows = store.maintenanceWindows.pageRows('acme', { limit: 100, page: 17 }).items;
    expect(rows.map((row) => [row.id, JSON.parse(row.doc).n])).toEqual(pageOf(17).items.map((doc) => [String(doc.id), doc['n']]));

    const deleted = store.maintenanceWindows.page('acme', { limit: 5, page: 250 }).items;
    for (const doc of deleted) store.maintenanceWindows.remove('acme', doc.id);
    expected.splice(1245, 5);
    expect(numbers(13)).toEqual(expected.slice(1200, 1300));
    expect(pageOf(20).total).toBe(expected.length);
    store.maintenanceWindows.insert('acme', (id) => ({ id, n: 3000 }));
    expected.push(3000);
    expect(numbers(pages)).toEqual(expected.slice((pages - 1) * 100));
    store.close();
  });

  it('pages deep into a filtered list exactly as a slice of the matching documents', () => {
    const store = new Store(':memory:');
    const types = ['API', 'MULTI_STEP', 'HEARTBEAT'];
    for (let n = 0; n < 4000; n += 1) store.checks.insert('acme', (id) => ({ id, n, checkType: types[n % 3] }));
    const multiStep = Array.from({ length: 4000 }, (_, n) => n).filter((n) => n % 3 === 1);
    const filters = [{ sql: 'check_type = ?', values: ['MULTI_STEP'] }];
    for (const page of [1, 11, 12, 14]) {
      const { items, total } = store.checks.page('acme', { limit: 100, page, filters });
      expect(total).toBe(multiStep.length);
      expect(items.map((doc) => doc['n'])).toEqual(multiStep.slice((page - 1) * 100, page * 100));
    }
    store.close();
  });

  it('filters with SQL conditions on the document', () => {
    const store = new Store(':memory:');
    store.checks.insert('acme', (id) => ({ id, checkType: 'API', tags: ['prod'] }));
    store.checks.insert('acme', (id) => ({ id, checkType: 'MULTI_STEP', tags: ['prod', 'eu'] }));
    const eu = store.checks.all('acme', [{ sql: "EXISTS (SELECT 1 FROM json_each(doc, '$.tags') WHERE value = ?)", values: ['eu'] }]);
    expect(eu.map((doc) => doc['checkType'])).toEqual(['MULTI_STEP']);
    store.close();
  });
});

describe('uuidV7', () => {
  it('is a version 7, RFC 9562 variant UUID whose order follows creation time', () => {
    const earlier = uuidV7(1_700_000_000_000);
    const later = uuidV7(1_700_000_000_001);
    expect(earlier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(earlier.slice(0, 13)).toBe('018bcfe5-6800');
    expect(earlier < later).toBe(true);
  });
});

describe('Store.writeBatched (group commit)', () => {
  it('commits the writes of one event-loop turn together and undoes only a failed one', async () => {
    const dir = tempDir();
    const store = new Store(dir);
    const first = store.writeBatched(() => store.checks.insert('acme', (id) => ({ id, name: 'first' })));
    expect(() => store.writeBatched(() => {
      store.checks.insert('acme', (id) => ({ id, name: 'undone' }));
      throw new Error('handler failed');
    })).toThrow('handler failed');
    const third = store.writeBatched(() => store.checks.insert('acme', (id) => ({ id, name: 'third' })));
    expect(third.committed).toBe(first.committed);
    expect(store.db.inTransaction).toBe(true);
    await first.committed;
    expect(store.db.inTransaction).toBe(false);
    store.close();
    const reopened = new Store(dir);
    expect(reopened.checks.all('acme').map((doc) => doc['name'])).toEqual(['first', 'third']);
    reopened.close();
  });

  it('commits a pending batch when the store closes', () => {
    const dir = tempDir();
    const store = new Store(dir);
    store.writeBatched(() => store.checks.insert('acme', (id) => ({ id, name: 'pending' })));
    store.close();
    const reopened = new Store(dir);
    expect(reopened.checks.all('acme')).toHaveLength(1);
    reopened.close();
  });

  it('counts integer ids per account, so one tenant\'s ids say nothing about another\'s activity', () => {
    const store = new Store(':memory:');
    for (let i = 0; i < 5; i += 1) store.checkGroups.insert('busy', (id) => ({ id }));
    const quiet = [store.checkGroups.insert('quiet', (id) => ({ id })), store.checkGroups.insert('quiet', (id) => ({ id }))];
    expect(quiet.map((doc) => doc.id)).toEqual([1, 2]);
    expect(store.alertChannels.insert('quiet', (id) => ({ id })).id).toBe(1);
    store.close();
  });

  it('gives a rolled-back create\'s id to the next create', () => {
    const store = new Store(':memory:');
    expect(() =>
      store.transaction(() => {
        store.checkGroups.insert('acme', (id) => ({ id }));
        throw new Error('validation failed after the insert');
      }),
    ).toThrow('validation failed after the insert');
    expect(store.checkGroups.insert('acme', (id) => ({ id })).id).toBe(1);
    store.close();
  });

  it('migrates a database with service-wide ids: every id kept, none ever handed out again in any account', () => {
    const dir = tempDir();
    const old = openDatabase({ dir });
    migrateSqlite(old, { through: 5 });
    const insert = old.prepare('INSERT INTO check_groups (account_id, id, doc) VALUES (?, ?, ?)');
    for (const [account, id] of [['acme', 1], ['globex', 2], ['acme', 3], ['globex', 4]] as const) insert.run(account, String(id), JSON.stringify({ id, account }));
    old.prepare("DELETE FROM check_groups WHERE id = '4'").run();
    old.close();

    const store = new Store(dir);
    expect(store.checkGroups.all('acme')).toEqual([{ id: 1, account: 'acme' }, { id: 3, account: 'acme' }]);
    expect(store.checkGroups.all('globex')).toEqual([{ id: 2, account: 'globex' }]);
    // Ids 1-4 were handed out before (4 then deleted); every account continues above them.
    expect(store.checkGroups.insert('globex', (id) => ({ id })).id).toBe(5);
    expect(store.checkGroups.insert('acme', (id) => ({ id })).id).toBe(5);
    expect(store.checkGroups.insert('newcomer', (id) => ({ id })).id).toBe(5);
    // Row order did not restart: the new rows page after the old ones.
    expect(store.checkGroups.all('acme').map((doc) => doc.id)).toEqual([1, 3, 5]);
    store.close();
  });

  describe('file modes (the database holds secret values)', () => {
    const modeOf = (target: string): string => (statSync(target).mode & 0o777).toString(8);

    it('creates a missing data directory 0700 and vigil.db, -wal and -shm 0600', () => {
      const dir = path.join(tempDir(), 'new', 'data');
      const warnings: string[] = [];
      const store = new Store(dir, { warn: (message) => warnings.push(message) });
      store.checks.insert('acme', (id) => ({ id, environmentVariables: [{ key: 'TOKEN', value: 'hunter2', secret: true }] }));
      expect(modeOf(dir)).toBe('700');
      expect(modeOf(path.dirname(dir))).toBe('700');
      for (const file of ['vigil.db', 'vigil.db-wal', 'vigil.db-shm']) expect([file, modeOf(path.join(dir, file))]).toEqual([file, '600']);
      expect(warnings).toEqual([]);
      store.close();
    });

    it('tightens database files an older vigil left 0644, and warns about a directory others can read without changing it', () => {
      const dir = tempDir();
      chmodSync(dir, 0o755);
      new Store(dir).close();
      chmodSync(path.join(dir, 'vigil.db'), 0o644);
      const warnings: string[] = [];
      const store = new Store(dir, { warn: (message) => warnings.push(message) });
      expect(modeOf(path.join(dir, 'vigil.db'))).toBe('600');
      expect(modeOf(dir)).toBe('755');
      expect(warnings).toEqual([`${dir} is accessible to other users (mode 755), and the database in it holds secret values; run chmod 700 ${dir}`]);
      store.close();
    });

    it('creates an exact database file 0600 in a new 0700 directory', () => {
      const file = path.join(tempDir(), '.vigil', 'local.db');
      mkdirSync(path.dirname(path.dirname(file)), { recursive: true });
      const store = new Store({ file });
      expect(modeOf(file)).toBe('600');
      expect(modeOf(path.dirname(file))).toBe('700');
      store.close();
    });

    it('says nothing about a private directory', () => {
      const dir = tempDir();
      chmodSync(dir, 0o700);
      writeFileSync(path.join(dir, 'unrelated.txt'), '');
      const warnings: string[] = [];
      new Store(dir, { warn: (message) => warnings.push(message) }).close();
      expect(warnings).toEqual([]);
    });
  });
});


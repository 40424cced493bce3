/**
 * Step 36 on a database an older vigil left: pings its watch had turned into results stay processed,
 * pings stored past its cursor (while the scheduler was off) are handed out, and a database whose
 * watch never ran hands out none of its old pings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../index.js';
import { sqlitePorts } from '../index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database migrated through step 35 with three pings stored, and the cursor as `cursorRowid` left it (undefined: no watch ran). */
function olderDatabase(cursorRowid: number | undefined): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-step-36-'));
  dirs.push(dir);
  const older = new Store(dir, { through: 35 });
  const insert = older.db.prepare('INSERT INTO heartbeat_events (account_id, id, check_id, at_ms, doc) VALUES (?, ?, ?, ?, ?)');
  for (const [index, id] of ['ping-1', 'ping-2', 'ping-3'].entries()) insert.run('acme', id, 'hb', 1_000 + index, JSON.stringify({ id }));
  if (cursorRowid !== undefined) older.db.prepare('INSERT INTO heartbeat_ping_cursor (id, event_rowid) VALUES (1, ?)').run(cursorRowid);
  older.close();
  return dir;
}

describe('SQLite step 36 (heartbeat pings as leases)', () => {
  it('leaves the pings at or before the cursor processed and hands out those after it, once monitoring starts again', async () => {
    const store = new Store(olderDatabase(2));
    const ports = sqlitePorts(store);
    try {
      expect(await ports.heartbeatPings.startOnce()).toBe(false);
      expect((await ports.heartbeatPings.claim('replica', 5_000, 60_000, 10)).map((ping) => ping.id)).toEqual(['ping-3']);
      expect(await ports.heartbeatPings.progress('acme', 'ping-1')).toEqual({ processed: true, owner: null, leaseUntilMs: null });
    } finally {
      await ports.close();
    }
  });

  it('hands out none of the pings of a database whose watch never ran, and starts it at the first start', async () => {
    const store = new Store(olderDatabase(undefined));
    const ports = sqlitePorts(store);
    try {
      expect(await ports.heartbeatPings.claim('replica', 5_000, 60_000, 10)).toEqual([]);
      expect(await ports.heartbeatPings.startOnce()).toBe(true);
      expect(await ports.heartbeatPings.startOnce()).toBe(false);
    } finally {
      await ports.close();
    }
  });
});

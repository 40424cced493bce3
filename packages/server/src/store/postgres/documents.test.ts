/**
 * The change feed's order on PostgreSQL: a position taken by a write still in flight is never passed
 * by a reader, whatever the other replicas commit meanwhile.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoragePorts } from '../ports.js';
import { FEED_LOCK } from './documents.js';
import { openPostgresPorts } from './index.js';
import { useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

describe('the documents change feed on PostgreSQL', () => {
  it('holds a later write back until one that took its position earlier commits, so a reader misses neither', async () => {
    const connectionString = await postgres.freshDatabase();
    const ports: StoragePorts = await openPostgresPorts({ connectionString });
    const slow = new pg.Client({ connectionString });
    const observer = new pg.Client({ connectionString });
    await slow.connect();
    await observer.connect();
    open.push(ports, { close: () => slow.end() }, { close: () => observer.end() });

    // Another replica's write, as the engine makes it, stopped between taking its position and committing.
    await slow.query('BEGIN');
    await slow.query('SELECT pg_advisory_xact_lock($1::bigint)', [FEED_LOCK.toString()]);
    await slow.query("INSERT INTO document_changes (kind, account_id, id, changed_ms) VALUES ('checks', 'acc', 'slow', 1)");

    let fastDone = false;
    const fast = ports.documents.insert('checks', 'acc', (id) => ({ id, name: 'fast' })).then((doc) => {
      fastDone = true;
      return doc;
    });
    // Waits until the fast write has either committed or queued behind the slow one's lock.
    for (;;) {
      const waiting = await observer.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
      if (fastDone || waiting.rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const before = await ports.documents.changesSince(0, 10);

    await slow.query('COMMIT');
    const stored = await fast;
    const after = await ports.documents.changesSince(before.position, 10);
    const seen = [...before.changes, ...after.changes].map((change) => change.id);
    expect(seen.sort()).toEqual([String(stored.id), 'slow'].sort());
  });
});

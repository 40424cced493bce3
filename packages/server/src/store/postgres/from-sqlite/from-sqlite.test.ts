/**
 * The kinds the end-to-end test (test/e2e/server-migrate-data.test.ts) does not fill through the API:
 * written into a SQLite database as its engine lays them out, copied, and read back from PostgreSQL
 * row for row, with the columns PostgreSQL adds filled and the id counters past every id handed out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../index.js';
import { openDatabase } from '../../database.js';
import { openPostgres } from '../database.js';
import { useTestPostgres } from '../test-database.js';
import { migrateData } from './index.js';

const postgres = useTestPostgres();
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-from-sqlite-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function sourceWithEveryKind(file: string): void {
  new Store({ file }).close();
  const db = openDatabase({ file });
  db.exec(`
    INSERT INTO dashboards (account_id, id, doc, dashboard_id, custom_url, custom_domain) VALUES ('acme', '7', '{"id":7,"dashboardId":"d7"}', 'd7', 'acme-status', NULL);
    INSERT INTO id_counters (collection, account_id, last_id) VALUES ('dashboards', 'acme', 9), ('check_group_triggers', 'acme', 3);
    INSERT INTO id_floors (collection, floor) VALUES ('maintenance_windows', 40) ON CONFLICT (collection) DO UPDATE SET floor = 40;
    INSERT INTO state_documents (account_id, project, lineage, serial, doc, updated_ms) VALUES ('acme', 'web', 'L1', 4, '{"serial":4}', 1000);
    INSERT INTO state_locks (account_id, project, lock_id, info, created_ms, expires_ms) VALUES ('acme', 'web', 'lock-1', '{}', 1000, 2000);
    INSERT INTO account_profiles (account_id, doc) VALUES ('acme', '{"name":"Acme"}');
    INSERT INTO check_group_triggers (account_id, group_id, doc) VALUES ('acme', 2, '{"id":3,"token":"t"}');
    INSERT INTO private_locations (account_id, id, doc) VALUES ('acme', 'pl-1', '{"id":"pl-1","slugName":"basement"}');
    INSERT INTO private_location_keys (id, account_id, private_location_id, key_digest, masked_key, created_at) VALUES ('k1', 'acme', 'pl-1', x'00ff10', 'pl_…abcd', '2026-11-27T00:00:00.000Z');
    INSERT INTO agent_runs (account_id, slot_key, check_id, location, due_ms, job, queued_ms, handouts) VALUES ('acme', 'c1@60000@basement@acme', 'c1', 'basement@acme', 60000, '{}', 59000, 0);
    INSERT INTO subscribe_requests (at_ms, page_key, address_key, client_key, mailed) VALUES (5000, 'p', 'a', 'c', 1);
  `);
  db.close();
}

describe('migrate-data from SQLite', () => {
  it('copies the kinds outside the API test row for row, filling what PostgreSQL keeps beside them', async () => {
    const file = path.join(dir, 'every-kind.db');
    sourceWithEveryKind(file);
    const to = await postgres.freshDatabase();
    const report = await migrateData({ from: file, to });
    const copied = Object.fromEntries(report.counts.map((count) => [count.kind, [count.source, count.target]]));
    expect(copied).toMatchObject({
      dashboards: [1, 1],
      'project states': [1, 1],
      'project state locks': [1, 1],
      'account profiles': [1, 1],
      'group triggers': [1, 1],
      'private locations': [1, 1],
      'private location keys': [1, 1],
      'agent runs': [1, 1],
      'subscription form submissions': [1, 1],
      'service id': [1, 1],
    });

    const { db, close } = openPostgres({ connectionString: to });
    try {
      const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
      expect(await rows(sql`SELECT id, dashboard_id, custom_url FROM dashboards`)).toEqual([{ id: 7, dashboard_id: 'd7', custom_url: 'acme-status' }]);
      expect(await rows(sql`SELECT slug_name FROM private_locations`)).toEqual([{ slug_name: 'basement' }]);
      expect(await rows(sql`SELECT key_digest FROM private_location_keys`)).toEqual([{ key_digest: Buffer.from([0, 0xff, 0x10]) }]);
      expect(await rows(sql`SELECT mailed FROM subscribe_requests`)).toEqual([{ mailed: true }]);
      expect(await rows(sql`SELECT serial, doc FROM state_documents`)).toEqual([{ serial: 4, doc: '{"serial":4}' }]);
      // Counters: the SQLite counter where it is highest, the service-wide floor for an account that never counted.
      expect(await rows(sql`SELECT kind, last_id FROM document_id_counters WHERE account_id = 'acme' ORDER BY kind`)).toEqual([
        { kind: 'check_group_triggers', last_id: 3 },
        { kind: 'dashboards', last_id: 9 },
        { kind: 'maintenance_windows', last_id: 40 },
      ]);
      // New rows after the copy continue the copied order.
      await sql`INSERT INTO private_locations (account_id, id, slug_name, doc) VALUES ('acme', 'pl-2', 'attic', '{}')`.execute(db);
      expect(await rows(sql`SELECT id FROM private_locations ORDER BY seq`)).toEqual([{ id: 'pl-1' }, { id: 'pl-2' }]);
    } finally {
      await close();
    }

    // The target now holds data: a second run refuses it and changes nothing.
    await expect(migrateData({ from: file, to })).rejects.toThrow(/already holds data: .*dashboards \(1 row\)/);
  });
});

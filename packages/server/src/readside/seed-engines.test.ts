/**
 * `--seed` on both engines: the fixture loaded through the storage ports of SQLite and of PostgreSQL
 * (store/contract/engines.ts) stores the same things under the seed's ids, a reload adds nothing, and a
 * seed refused part-way leaves nothing behind.
 */
import { describe, expect, it } from 'vitest';
import { enginesUnderTest } from '../store/contract/engines.js';
import { IDS, SEED } from './fixtures/seed-fixture.js';
import { loadSeed } from './seed.js';

const engines = enginesUnderTest();
const NOTHING = { checks: 0, checkResults: 0, heartbeatEvents: 0, statusPages: 0, subscriptions: 0 };

describe.each(engines)('--seed on $name', (engine) => {
  it('stores the fixture under its ids, readable by another replica, and adds nothing when loaded again', async () => {
    const database = await engine.freshDatabase();
    const [loader, reader] = [await database.replica(), await database.replica()];
    const now = new Date('2026-03-18T12:00:00.000Z');
    expect(await loadSeed({ ports: loader }, SEED, { now })).toEqual({ checks: 5, checkResults: 18, heartbeatEvents: 17, statusPages: 2, subscriptions: 13 });
    expect(await loadSeed({ ports: reader }, SEED, { now })).toEqual(NOTHING);
    expect(await reader.documents.get('checks', 'acme', IDS.apiCheck)).toMatchObject({ id: IDS.apiCheck, checkType: 'API', degradedResponseTime: 5000, maxResponseTime: 20000, activated: true });
    expect(await reader.documents.get('checks', 'globex', IDS.apiCheck)).toBeUndefined();
    const results = await reader.checkResults.newestFirst('acme', IDS.apiCheck, { limit: 100 });
    expect(results).toHaveLength(12);
    expect(await reader.statusPages.get('acme', IDS.statusPage)).toMatchObject({ id: IDS.statusPage });
    expect(await reader.statusPages.subscriptionsOf('acme', IDS.statusPage)).toHaveLength(12);
    expect(await reader.accountProfiles.get('acme')).toBeDefined();
  });

  it('stores nothing from a seed refused part-way', async () => {
    const ports = await (await engine.freshDatabase()).replica();
    const seed = { accounts: [{ accountId: 'acme', checks: [{ id: 'c1', checkType: 'API', name: 'A', request: { url: 'https://a.test' } }], checkResults: [{ checkId: 'missing', created_at: 'now', runLocation: 'eu-west-1' }] }] };
    await expect(loadSeed({ ports }, seed)).rejects.toThrow('seed: accounts.0.checkResults.0.checkId: check "missing" is not in the seed or the store');
    expect(await ports.documents.get('checks', 'acme', 'c1')).toBeUndefined();
  });
});

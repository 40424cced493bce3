import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../start.js';
import { Store } from '../store/index.js';
import { apiFor } from '../test-support.js';
import { IDS, SEED } from './fixtures/seed-fixture.js';
import { loadSeed, resolveTime, SeedError } from './seed.js';
import { openRepositories } from '../repositories.js';

const stores: Store[] = [];
function memoryStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

describe('loadSeed', () => {
  it('loads the fixture and reports what it added', async () => {
    const summary = await loadSeed(openRepositories(memoryStore()), SEED);
    expect(summary).toEqual({ checks: 5, checkResults: 18, heartbeatEvents: 17, statusPages: 2, subscriptions: 13 });
  });

  it('keeps the seed’s check ids and creates checks with the create defaults', async () => {
    const store = memoryStore();
    await loadSeed(openRepositories(store), SEED);
    expect(store.checks.get('acme', IDS.apiCheck)).toMatchObject({
      id: IDS.apiCheck,
      checkType: 'API',
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      activated: true,
      frequencyOffset: expect.any(Number),
    });
    expect(store.checks.get('globex', IDS.apiCheck)).toBeUndefined();
  });

  it('adds nothing when the same seed is loaded again', async () => {
    const store = memoryStore();
    await loadSeed(openRepositories(store), SEED);
    expect(await loadSeed(openRepositories(store), SEED)).toEqual({ checks: 0, checkResults: 0, heartbeatEvents: 0, statusPages: 0, subscriptions: 0 });
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM check_results').get()).toEqual({ n: 18 });
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM status_page_subscriptions').get()).toEqual({ n: 13 });
  });

  it('stores a status page’s cards, creating each service it names with the seed’s id unless stored, for that account only', async () => {
    const store = memoryStore();
    const serviceId = '3f1c1a52-6f0e-4c1e-9d55-0d5f3f1b7a10';
    const seed = { accounts: [{ accountId: 'acme', statusPages: [{ id: 'p1', name: 'Acme', cards: [{ name: 'Web', services: [{ id: serviceId, name: 'Shop' }] }] }] }] };
    await loadSeed(openRepositories(store), seed);
    await loadSeed(openRepositories(store), seed);
    expect(store.services.get('acme', serviceId)).toMatchObject({ id: serviceId, name: 'Shop' });
    expect(store.services.all('acme')).toHaveLength(1);
    expect(store.services.get('globex', serviceId)).toBeUndefined();
    const { statusPages } = openRepositories(store).ports;
    expect((await statusPages.showingService('acme', serviceId)).map((page) => page.id)).toEqual(['p1']);
    expect(await statusPages.showingService('globex', serviceId)).toEqual([]);
  });

  const account = (fields: Record<string, unknown>) => ({ accounts: [{ accountId: 'acme', ...fields }] });
  const apiCheck = { id: 'c1', checkType: 'API', name: 'A', request: { url: 'https://a.test' } };
  it.each([
    ['a seed that is not an object', 'nope', /^seed: \(root\): /],
    ['a result of an unknown check', account({ checkResults: [{ checkId: 'missing', created_at: 'now', runLocation: 'eu-west-1' }] }),
      /^seed: accounts\.0\.checkResults\.0\.checkId: check "missing"/],
    ['an unknown location', account({ checks: [apiCheck], checkResults: [{ checkId: 'c1', created_at: 'now', runLocation: 'moon-1' }] }),
      /^seed: accounts\.0\.checkResults\.0\.runLocation: /],
    ['an unreadable time', account({ checks: [apiCheck], checkResults: [{ checkId: 'c1', created_at: 'yesterday', runLocation: 'eu-west-1' }] }),
      /^seed: accounts\.0\.checkResults\.0\.created_at: "yesterday" is neither/],
    ['a check the create schema refuses', account({ checks: [{ id: 'c2', checkType: 'API', name: 'no request' }] }),
      /^seed: accounts\.0\.checks\.0\.request: /],
    ['a heartbeat event of an unknown check', account({ heartbeatEvents: [{ checkId: 'x', state: 'RECEIVED', timestamp: 'now' }] }),
      /^seed: accounts\.0\.heartbeatEvents\.0\.checkId: /],
    ['an unknown heartbeat state', account({ heartbeatEvents: [{ checkId: 'x', state: 'ON_TIME', timestamp: 'now' }] }),
      /^seed: accounts\.0\.heartbeatEvents\.0\.state: /],
    ['a check id another account holds', { accounts: [{ accountId: 'acme', checks: [apiCheck] }, { accountId: 'globex', checks: [apiCheck] }] },
      /^seed: accounts\.1\.checks\.0\.id: check "c1" belongs to another account$/],
    ['a service id another account holds', { accounts: ['acme', 'globex'].map((accountId) => ({ accountId, statusPages: [{ id: `p-${accountId}`, name: 'P', cards: [{ name: 'Web', services: [{ id: 's1' }] }] }] })) },
      /^seed: accounts\.1\.statusPages\.0\.cards\.0\.services\.0\.id: service "s1" belongs to another account$/],
    ['a check id longer than any stored', account({ checks: [{ ...apiCheck, id: 'c'.repeat(256) }] }),
      /^seed: accounts\.0\.checks\.0\.id: at most 255 characters, got 256$/],
  ])('refuses %s, naming the path', async (_case, seed, message) => {
    await expect(loadSeed(openRepositories(memoryStore()), seed)).rejects.toThrow(message);
  });

  it('refuses an account the server does not know', async () => {
    await expect(loadSeed(openRepositories(memoryStore()), account({}), { knownAccountIds: ['other'] })).rejects.toThrow(
      new SeedError('seed: accounts.0.accountId: account "acme" is not configured on this server'),
    );
  });

  it('stores nothing from a seed that fails part-way', async () => {
    const store = memoryStore();
    const seed = account({ checks: [apiCheck], checkResults: [{ checkId: 'missing', created_at: 'now', runLocation: 'eu-west-1' }] });
    await expect(loadSeed(openRepositories(store), seed)).rejects.toThrow(SeedError);
    expect(store.checks.get('acme', 'c1')).toBeUndefined();
  });
});

describe('relative seed times', () => {
  const now = new Date('2026-03-18T12:00:00.000Z');
  it.each([
    ['now', '2026-03-18T12:00:00.000Z'],
    ['now-90m', '2026-03-18T10:30:00.000Z'],
    ['now-2h', '2026-03-18T10:00:00.000Z'],
    ['now-3d', '2026-03-15T12:00:00.000Z'],
    ['now+30s', '2026-03-18T12:00:30.000Z'],
    ['2026-01-05T10:00:00+01:00', '2026-01-05T09:00:00.000Z'],
  ])('%s → %s', (expression, expected) => {
    expect(resolveTime(expression, now, 'x')).toBe(expected);
  });
});

describe('--seed through startServer', () => {
  it('survives a restart on the same data directory without duplicating anything', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-seed-'));
    const accounts = [{ apiKey: 'k', accountId: 'acme' }, { apiKey: 'g', accountId: 'globex' }];
    const count = async () => {
      const server = await startServer({ seed: SEED, dataDir, accounts });
      const reply = await apiFor(server, 'k').get(`/v1/check-results/${IDS.apiCheck}?from=0&to=${2 ** 31}&resultType=ALL&limit=100`);
      await server.close();
      return reply.body.length as number;
    };
    try {
      expect(await count()).toBe(12);
      expect(await count()).toBe(12);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a seed naming an unconfigured account', async () => {
    await expect(startServer({ seed: SEED, accounts: [{ apiKey: 'k', accountId: 'acme' }] })).rejects.toThrow(
      'seed: accounts.1.accountId: account "globex" is not configured on this server',
    );
  });
});

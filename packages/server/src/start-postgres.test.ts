/**
 * `startServer({ databaseUrl })`: the service on PostgreSQL alone (no SQLite file anywhere), against
 * this file's throwaway cluster: the API writes and reads through it, a seed loads into it, a restart
 * on the same database finds everything, and a database that is down at start is refused with an
 * error naming it without its password.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { IDS, SEED } from './readside/fixtures/seed-fixture.js';
import { startServer, type ServerOptions } from './start.js';
import { useTestPostgres } from './store/postgres/test-database.js';
import { apiFor, OTHER_ACCOUNT, OTHER_API_KEY, TEST_ACCOUNT, TEST_API_KEY } from './test-support.js';

const postgres = useTestPostgres();
const accounts = [{ apiKey: TEST_API_KEY, accountId: TEST_ACCOUNT }, { apiKey: OTHER_API_KEY, accountId: OTHER_ACCOUNT }];

async function started(databaseUrl: string, options: ServerOptions = {}) {
  return apiFor(await startServer({ databaseUrl, accounts, checkResponses: true, ...options }));
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('vigil server on PostgreSQL', () => {
  it('serves the API from the database, and finds it all again after a restart', async () => {
    const databaseUrl = await postgres.freshDatabase();
    const first = await started(databaseUrl);
    const group = await first.post('/v2/check-groups', { name: 'Web', locations: ['eu-west-1'] });
    expect(group.status).toBe(201);
    const check = await first.post('/v1/checks/api', { name: 'Home', groupId: group.body.id, request: { method: 'GET', url: 'https://example.test/' } });
    expect(check.status).toBe(201);
    expect((await first.get('/healthz')).body).toEqual({ status: 'UP', database: { status: 'UP', engine: 'postgres' } });
    // Another account sees none of it.
    expect((await apiFor(first.server, OTHER_API_KEY).get(`/v1/checks/${check.body.id}`)).status).toBe(404);
    await first.close();

    const second = await started(databaseUrl);
    try {
      expect((await second.get(`/v1/checks/${check.body.id}`)).body).toMatchObject({ id: check.body.id, name: 'Home', groupId: group.body.id });
      const listed = await second.get('/v1/checks');
      expect(listed.body.map((each: { id: string }) => each.id)).toEqual([check.body.id]);
      expect((await second.delete(`/v1/check-groups/${group.body.id}`)).status).toBe(409);
    } finally {
      await second.close();
    }
  });

  it('loads a seed into the database once, however often it starts with it', async () => {
    const databaseUrl = await postgres.freshDatabase();
    const resultsOfApiCheck = async () => {
      const api = await started(databaseUrl, { seed: SEED });
      try {
        const reply = await api.get(`/v1/check-results/${IDS.apiCheck}?from=0&to=${2 ** 31}&resultType=ALL&limit=100`);
        expect((await api.get(`/v1/status-pages/${IDS.statusPage}/subscriptions?limit=100`)).body).toHaveLength(12);
        return reply.body.length as number;
      } finally {
        await api.close();
      }
    };
    expect(await resultsOfApiCheck()).toBe(12);
    expect(await resultsOfApiCheck()).toBe(12);
  });

  it('refuses a database that is down at start, naming host:port/database and never the password', async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const starting = startServer({
      databaseUrl: `postgres://vigil:n0t-Printed@127.0.0.1:${port}/vigil`,
      connectRetry: { attempts: 2, firstDelayMs: 10, random: () => 0 },
      onWarning: (message) => warnings.push(message),
    });
    await expect(starting).rejects.toThrow(new Error(`PostgreSQL at 127.0.0.1:${port}/vigil is unavailable: connect ECONNREFUSED 127.0.0.1:${port} (gave up after 2 attempts)`));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`PostgreSQL at 127.0.0.1:${port}/vigil is unavailable`);
    expect(warnings.join('\n')).not.toContain('n0t-Printed');
  });

  it('refuses a database URL together with a data directory', async () => {
    await expect(startServer({ databaseUrl: 'postgres://vigil@127.0.0.1:1/vigil', dataDir: ':memory:' })).rejects.toThrow(
      new Error('give either databaseUrl or dataDir/databaseFile, not both'),
    );
  });

  it('refuses prepareStatements without a database URL', async () => {
    await expect(startServer({ dataDir: ':memory:', prepareStatements: false })).rejects.toThrow(
      new Error('prepareStatements is an option of databaseUrl (PostgreSQL); SQLite prepares its statements in process'),
    );
  });
});

import { Account, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED } from '../readside/fixtures/seed-fixture.js';
import { startServer, type RunningServer } from '../start.js';
import { apiFor } from '../test-support.js';

// Key `both` belongs to acme (its default) and globex; key `solo` only to globex.
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    seed: SEED,
    accounts: [
      { apiKey: 'both', accountId: 'acme' },
      { apiKey: 'both', accountId: 'globex', name: 'Globex Inc' },
      { apiKey: 'solo', accountId: 'globex' },
    ],
  });
});
afterAll(() => server.close());

describe('accounts', () => {
  it('lists every account of the key, with the seeded profile or defaults', async () => {
    const reply = await apiFor(server, 'both').get('/v1/accounts');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      {
        id: 'acme',
        name: 'Acme Corp',
        runtimeId: '2024.09',
        settings: { timezone: 'Europe/Amsterdam' },
        alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } },
      },
      { id: 'globex', name: 'Globex Inc', runtimeId: '2026.04', settings: {}, alertSettings: DEFAULT_ALERT_SETTINGS },
    ]);
    for (const account of reply.body) expect(Account.safeParse(account).success).toBe(true);
  });

  it('lists only the accounts of the calling key', async () => {
    expect((await apiFor(server, 'solo').get('/v1/accounts')).body.map((a: { id: string }) => a.id)).toEqual(['globex']);
  });

  it('reads one account of the key', async () => {
    const reply = await apiFor(server, 'both').get('/v1/accounts/globex');
    expect([reply.status, reply.body.name]).toEqual([200, 'Globex Inc']);
  });

  it('answers 404 for an account the key does not belong to, and an unknown one', async () => {
    expect((await apiFor(server, 'solo').get('/v1/accounts/acme')).status).toBe(404);
    expect((await apiFor(server, 'solo').get('/v1/accounts/nobody')).status).toBe(404);
  });

  it('answers 401 without a key', async () => {
    expect((await apiFor(server, 'wrong').get('/v1/accounts')).status).toBe(401);
  });
});

describe('GET /next/users/me (the Checkly CLI\'s whoami)', () => {
  it('names the key by a hash of it, never the key, and tells two keys apart', async () => {
    const both = await apiFor(server, 'both').get('/next/users/me');
    const solo = await apiFor(server, 'solo').get('/next/users/me');
    expect(both.status).toBe(200);
    expect(both.body).toEqual({ id: expect.stringMatching(/^key-[0-9a-f]{12}$/), name: expect.stringMatching(/^API key [0-9a-f]{8}$/), email: null });
    expect(solo.body.id).not.toBe(both.body.id);
    expect(JSON.stringify(both.body)).not.toContain('both');
  });

  it('needs a key like every call', async () => {
    const reply = await fetch(`${server.url}/next/users/me`);
    expect(reply.status).toBe(401);
  });
});

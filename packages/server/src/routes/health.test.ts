import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type SqliteServiceApp } from '../app.js';
import type { AppEnv } from '../http/types.js';
import { portsDatabaseHealth, registerHealth } from './health.js';

const apps: SqliteServiceApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** An app on SQLite, whose store a test may close under it. */
function service(): SqliteServiceApp {
  const app = createApp({ accounts: [{ apiKey: 'key', accountId: 'acme' }] });
  apps.push(app);
  return app;
}

describe('GET /healthz', () => {
  it('answers 200 without an API key while the database answers, naming nothing of any account', async () => {
    const response = await service().app.request('/healthz');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'UP', database: { status: 'UP', engine: 'sqlite' } });
  });

  it('is described in the OpenAPI document as a call that takes no key', async () => {
    const document = (await (await service().app.request('/openapi.json')).json()) as { paths: Record<string, { get?: { security?: unknown[] } }> };
    expect(document.paths['/healthz']?.get?.security).toEqual([]);
  });

  it('answers 503 with the reason when the database does not answer', async () => {
    const app = service();
    app.store.db.close();
    const response = await app.app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'DOWN', database: { status: 'DOWN', engine: 'sqlite', reason: 'The database connection is not open' } });
  });

  it('asks the SQLite engine on each probe: 503 once its connection is closed, with no since (a file answers or not at once)', async () => {
    const app = service();
    const health = portsDatabaseHealth(app.repositories.ports);
    expect(health.engine).toBe('sqlite');
    expect(await health.check()).toEqual({ ok: true });
    app.store.db.close();
    expect(await health.check()).toEqual({ ok: false, error: 'The database connection is not open' });
  });

  it("answers 503 with the engine's reason and since when the engine gives them", async () => {
    const app = new Hono<AppEnv>();
    const since = '2030-01-01T00:00:00.000Z';
    registerHealth(app, { engine: 'postgres', check: async () => ({ ok: false, error: 'PostgreSQL at db:5432/vigil is unavailable: connect ECONNREFUSED', since }) });
    const response = await app.request('/healthz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'DOWN', database: { status: 'DOWN', engine: 'postgres', reason: 'PostgreSQL at db:5432/vigil is unavailable: connect ECONNREFUSED', since } });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';

const apps: ServiceApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.close();
});

function service(): ServiceApp {
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
});

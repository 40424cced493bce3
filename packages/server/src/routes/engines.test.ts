/**
 * A handful of the route suites' assertions on each engine the service starts on: SQLite (the
 * default) and PostgreSQL (`databaseUrl`, this file's throwaway cluster). The same requests get the
 * same answers: creates and their Idempotency-Key replay and refusal, references that do not exist,
 * another tenant's id, a status page and its public page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../start.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import { apiCheckBody, OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

const postgres = useTestPostgres();
const engines: Array<{ name: string; options: () => Promise<ServerOptions> }> = [
  { name: 'sqlite', options: async () => ({}) },
  { name: 'postgres', options: async () => ({ databaseUrl: await postgres.freshDatabase() }) },
];

describe.each(engines)('routes on $name', ({ options }) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestServer(await options());
  });
  afterAll(async () => {
    await api.close();
  });

  it('replays a create repeated with its Idempotency-Key, and refuses the key for another body with 422', async () => {
    const first = await api.post('/v1/checks/api', apiCheckBody({ name: 'Once' }), { headers: { 'idempotency-key': 'engines-1' } });
    const again = await api.post('/v1/checks/api', apiCheckBody({ name: 'Once' }), { headers: { 'idempotency-key': 'engines-1' } });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.body).toEqual(first.body);
    const reuse = await api.post('/v1/checks/api', apiCheckBody({ name: 'Other' }), { headers: { 'idempotency-key': 'engines-1' } });
    expect([reuse.status, reuse.body]).toEqual([422, { statusCode: 422, error: 'Unprocessable Entity', message: 'Idempotency-Key "engines-1" was already used for a different request' }]);
  });

  it('refuses references that do not exist, naming them, and answers another tenant\'s check as missing', async () => {
    const grouped = await api.post('/v1/checks/api', apiCheckBody({ name: 'Grouped', groupId: 999_999 }));
    expect([grouped.status, grouped.body.message]).toEqual([400, '"groupId" references check group 999999, which does not exist']);
    const created = await api.post('/v1/checks/api', apiCheckBody({ name: 'Mine' }));
    const theirs = await apiFor(api.server, OTHER_API_KEY).get(`/v1/checks/${created.body.id}`);
    expect([theirs.status, theirs.body.message]).toEqual([404, `Check ${created.body.id} not found`]);
  });

  it('serves a status page made through the API on its public URL', async () => {
    const service = await api.post('/v1/status-pages/services', { name: 'Website' });
    const page = await api.post('/v1/status-pages', { name: 'Acme status', url: 'acme-engines', cards: [{ name: 'Web', services: [{ id: service.body.id }] }] });
    expect(page.status).toBe(201);
    const publicPage = await fetch(`${api.server.url}/status/acme-engines`);
    expect(publicPage.status).toBe(200);
    expect(await publicPage.text()).toContain('Acme status');
  });
});

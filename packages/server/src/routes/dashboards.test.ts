/** Dashboards over plain HTTP: defaults, merge, look-ups by name, service-wide names (409), tenancy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
let other: TestApi;
beforeAll(async () => {
  api = await startTestServer();
  other = apiFor(api.server, OTHER_API_KEY);
});
afterAll(async () => {
  await api.close();
});

const notFound = (id: string) => ({ statusCode: 404, error: 'Not Found', message: `Dashboard ${id} not found` });
const taken = (field: string, value: string) => ({ statusCode: 409, error: 'Conflict', message: `${field} "${value}" is already taken by another dashboard` });

describe('dashboards', () => {
  it("creates a dashboard with the real document's defaults, a numeric id and a dashboardId its paths take", async () => {
    const reply = await api.post('/v1/dashboards', { header: 'Acme status', customUrl: 'acme-status', tags: ['prod'] });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      header: 'Acme status', customUrl: 'acme-status', tags: ['prod'],
      customDomain: null, logo: null, favicon: null, link: null, description: null,
      width: 'FULL', refreshRate: 60, paginate: true, paginationRate: 60, sortByStatus: false, checksPerPage: 15,
      useTagsAndOperator: false, hideTags: false, enableIncidents: false, expandChecks: false, showHeader: true,
      showCheckRunLinks: false, showGroupNames: true, customCSS: '', isPrivate: false, showP95: true, showP99: true,
      id: expect.any(Number), dashboardId: expect.any(String), created_at: expect.any(String),
    });
    const { dashboardId } = reply.body;
    expect((await api.get(`/v1/dashboards/${dashboardId}`)).body).toEqual(reply.body);
    expect((await api.get('/v1/dashboards/ACME-Status?type=customUrl')).body).toEqual(reply.body);
    expect((await api.delete(`/v1/dashboards/${dashboardId}`)).status).toBe(204);
  });

  it('lists the account\'s dashboards oldest first, paged', async () => {
    const first = await api.post('/v1/dashboards', { header: 'One', customUrl: 'list-one' });
    const second = await api.post('/v1/dashboards', { header: 'Two', customUrl: 'list-two' });
    const page = await api.get('/v1/dashboards?limit=1&page=2');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-range')).toBe('1-1/2');
    expect(page.body.map((each: { header: string }) => each.header)).toEqual(['Two']);
    expect((await other.get('/v1/dashboards')).body).toEqual([]);
    for (const created of [first, second]) await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });

  it('merges a PUT: the fields sent replace the stored ones, the rest stay', async () => {
    const created = await api.post('/v1/dashboards', { header: 'Shop', customUrl: 'shop-status', tags: ['shop'], refreshRate: 300 });
    const updated = await api.put(`/v1/dashboards/${created.body.dashboardId}`, { header: 'Shop v2', tags: [], description: 'All shop checks' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, header: 'Shop v2', tags: [], description: 'All shop checks' });
    expect((await api.get(`/v1/dashboards/${created.body.dashboardId}`)).body).toEqual(updated.body);
    await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });

  it('finds a dashboard by its customDomain, without case, with type=customDomain', async () => {
    const created = await api.post('/v1/dashboards', { header: 'Own domain', customDomain: 'status.example.com' });
    expect((await api.get('/v1/dashboards/Status.Example.com?type=customDomain')).body.dashboardId).toBe(created.body.dashboardId);
    expect((await api.get('/v1/dashboards/status.example.com?type=customUrl')).body).toEqual(notFound('status.example.com'));
    await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });

  it.each([
    ['get', (id: string) => api.get(`/v1/dashboards/${id}`)],
    ['update', (id: string) => api.put(`/v1/dashboards/${id}`, { header: 'x' })],
    ['delete', (id: string) => api.delete(`/v1/dashboards/${id}`)],
  ])('answers 404 to a %s of a dashboard that does not exist', async (_name, call) => {
    const reply = await call('0190a1b2-0000-7000-8000-000000000000');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(notFound('0190a1b2-0000-7000-8000-000000000000'));
  });

  it('answers 404, as for a missing one, to every call on another tenant\'s dashboard', async () => {
    const created = await api.post('/v1/dashboards', { header: 'Private', customUrl: 'acme-only' });
    const id = created.body.dashboardId as string;
    expect((await other.get(`/v1/dashboards/${id}`)).body).toEqual(notFound(id));
    expect((await other.get('/v1/dashboards/acme-only?type=customUrl')).body).toEqual(notFound('acme-only'));
    expect((await other.put(`/v1/dashboards/${id}`, { header: 'Mine' })).status).toBe(404);
    expect((await other.delete(`/v1/dashboards/${id}`)).status).toBe(404);
    expect((await api.get(`/v1/dashboards/${id}`)).body.header).toBe('Private');
    await api.delete(`/v1/dashboards/${id}`);
  });

  it.each<[string, Record<string, unknown>, string, string[]]>([
    ['a missing header', { customUrl: 'x' }, '"header" is required', ['header']],
    [
      'a customUrl that is not a subdomain',
      { header: 'x', customUrl: 'acme.status' },
      '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "acme.status"',
      ['customUrl'],
    ],
    ['a javascript: logo link', { header: 'x', link: 'javascript:alert(1)' }, '"link" must be an http or https URL (or ""), got "javascript:alert(1)"', ['link']],
    ['checksPerPage above 20', { header: 'x', checksPerPage: 50 }, '"checksPerPage" must be less than or equal to 20', ['checksPerPage']],
    ['a refresh rate not offered', { header: 'x', refreshRate: 5 }, '"refreshRate" must be one of [60, 300, 600]', ['refreshRate']],
  ])('refuses a create with %s (400 naming the field)', async (_name, body, message, keys) => {
    const reply = await api.post('/v1/dashboards', body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ statusCode: 400, error: 'Bad Request', message, validation: { source: 'payload', keys } });
  });

  it('refuses an update that breaks a rule, and keeps the dashboard as it was', async () => {
    const created = await api.post('/v1/dashboards', { header: 'Rules', customUrl: 'rules' });
    const reply = await api.put(`/v1/dashboards/${created.body.dashboardId}`, { width: 'HALF' });
    expect(reply.body).toEqual({ statusCode: 400, error: 'Bad Request', message: '"width" must be one of [FULL, 960PX]', validation: { source: 'payload', keys: ['width'] } });
    expect((await api.get(`/v1/dashboards/${created.body.dashboardId}`)).body).toEqual(created.body);
    await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });

  it('refuses an unknown look-up type (400 naming the query parameter)', async () => {
    const reply = await api.get('/v1/dashboards/x?type=header');
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'query', keys: ['type'] });
  });
});

describe('customUrl and customDomain name one dashboard across the service', () => {
  it('refuses (409) a create with a customUrl any dashboard holds, in any case and in any account', async () => {
    const held = await api.post('/v1/dashboards', { header: 'Held', customUrl: 'taken-status' });
    expect((await api.post('/v1/dashboards', { header: 'Again', customUrl: 'Taken-Status' })).body).toEqual(taken('customUrl', 'Taken-Status'));
    const elsewhere = await other.post('/v1/dashboards', { header: 'Globex', customUrl: 'taken-status' });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body).toEqual(taken('customUrl', 'taken-status'));
    expect((await api.get('/v1/dashboards')).body.filter((each: { header: string }) => each.header === 'Again')).toEqual([]);
    await api.delete(`/v1/dashboards/${held.body.dashboardId}`);
    expect((await other.post('/v1/dashboards', { header: 'Globex', customUrl: 'taken-status' })).status).toBe(201);
  });

  it('refuses (409) an update to a customDomain another dashboard holds, and lets a dashboard keep its own', async () => {
    const first = await api.post('/v1/dashboards', { header: 'First', customDomain: 'first.example.com' });
    const second = await api.post('/v1/dashboards', { header: 'Second', customDomain: 'second.example.com' });
    const reply = await api.put(`/v1/dashboards/${second.body.dashboardId}`, { customDomain: 'FIRST.example.com' });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual(taken('customDomain', 'FIRST.example.com'));
    expect((await api.put(`/v1/dashboards/${first.body.dashboardId}`, { header: 'First v2', customDomain: 'First.example.com' })).status).toBe(200);
    expect((await api.put(`/v1/dashboards/${second.body.dashboardId}`, { customDomain: null })).body.customDomain).toBeNull();
    for (const created of [first, second]) await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });

  it('lets any number of dashboards have no customUrl', async () => {
    const plain = await api.post('/v1/dashboards', { header: 'A' });
    const empty = await api.post('/v1/dashboards', { header: 'B', customUrl: null });
    expect([plain.status, empty.status]).toEqual([201, 201]);
    for (const created of [plain, empty]) await api.delete(`/v1/dashboards/${created.body.dashboardId}`);
  });
});

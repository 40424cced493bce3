/** Status pages over plain HTTP: defaults, cards, merge, cursor paging, service-wide names (409), tenancy, services in use. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, TEST_ACCOUNT, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
let other: TestApi;
let web: { id: string; name: string };
let db: { id: string; name: string };
beforeAll(async () => {
  api = await startTestServer();
  other = apiFor(api.server, OTHER_API_KEY);
  web = (await api.post('/v1/status-pages/services', { name: 'Web' })).body;
  db = (await api.post('/v1/status-pages/services', { name: 'Database' })).body;
});
afterAll(async () => {
  await api.close();
});

const MISSING = '0190a1b2-0000-7000-8000-000000000000';
const notFound = (id: string) => ({ statusCode: 404, error: 'Not Found', message: `Status page ${id} not found` });
const taken = (field: string, value: string) => ({ statusCode: 409, error: 'Conflict', message: `${field} "${value}" is already taken by another status page` });
const badRequest = (message: string, keys: string[]) => ({ statusCode: 400, error: 'Bad Request', message, validation: { source: 'payload', keys } });
const page = (url: string, extra: Record<string, unknown> = {}) => ({ name: `Page ${url}`, url, cards: [{ name: 'Everything', services: [{ id: web.id }] }], ...extra });

describe('status pages', () => {
  it("creates a page with the real document's defaults and its cards' services in full", async () => {
    const reply = await api.post('/v1/status-pages', { name: 'Acme status', url: 'Acme-Status', cards: [{ name: 'Core', services: [{ id: web.id }, { id: db.id }] }, { name: 'Empty' }] });
    expect(reply.status).toBe(201);
    const service = (s: { id: string; name: string }) => ({ id: s.id, name: s.name, accountId: TEST_ACCOUNT, created_at: expect.any(String), updated_at: null });
    expect(reply.body).toEqual({
      id: expect.any(String), accountId: TEST_ACCOUNT, name: 'Acme status', url: 'acme-status',
      description: null, customDomain: null, themeColors: null, logo: null, logoDark: null, redirectTo: null, favicon: null, defaultTheme: 'AUTO', isPrivate: false,
      cards: [
        { id: expect.any(String), name: 'Core', services: [service(web), service(db)], created_at: expect.any(String), updated_at: null },
        { id: expect.any(String), name: 'Empty', services: [], created_at: expect.any(String), updated_at: null },
      ],
      created_at: expect.any(String), updated_at: null,
    });
    expect((await api.get(`/v1/status-pages/${reply.body.id}`)).body).toEqual(reply.body);
    expect((await api.delete(`/v1/status-pages/${reply.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/status-pages/${reply.body.id}`)).body).toEqual(notFound(reply.body.id));
  });

  it("lists the account's pages oldest first, paged by cursor", async () => {
    const first = await api.post('/v1/status-pages', page('list-one'));
    const second = await api.post('/v1/status-pages', page('list-two'));
    const one = await api.get('/v1/status-pages?limit=1');
    expect(one.body).toMatchObject({ length: 1, entries: [{ url: 'list-one' }], nextId: expect.any(String) });
    const two = await api.get(`/v1/status-pages?limit=1&nextId=${one.body.nextId}`);
    expect(two.body).toMatchObject({ length: 1, entries: [{ url: 'list-two' }], nextId: null });
    expect((await other.get('/v1/status-pages')).body).toEqual({ length: 0, entries: [], nextId: null });
    expect((await api.get('/v1/status-pages?nextId=bogus')).status).toBe(400);
    for (const created of [first, second]) await api.delete(`/v1/status-pages/${created.body.id}`);
  });

  it('merges a PUT: name, url and cards replace the stored ones, other fields left out stay; a card named again keeps its id', async () => {
    const created = await api.post('/v1/status-pages', page('merge', { logo: 'https://acme.com/logo.png', defaultTheme: 'DARK' }));
    const [card] = created.body.cards;
    const updated = await api.put(`/v1/status-pages/${created.body.id}`, { name: 'Merged', url: 'merge', cards: [{ name: 'Everything', services: [{ id: db.id }] }, { name: 'New' }] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Merged', logo: 'https://acme.com/logo.png', defaultTheme: 'DARK', updated_at: expect.any(String) });
    expect(updated.body.cards.map((each: { id: string; name: string; services: Array<{ name: string }> }) => [each.name, each.services.map((s) => s.name)])).toEqual([['Everything', ['Database']], ['New', []]]);
    expect(updated.body.cards[0]).toMatchObject({ id: card.id, created_at: card.created_at, updated_at: expect.any(String) });
    expect(updated.body.cards[1].id).not.toBe(card.id);
    expect((await api.get(`/v1/status-pages/${created.body.id}`)).body).toEqual(updated.body);
    await api.delete(`/v1/status-pages/${created.body.id}`);
  });

  it.each([
    ['get', (id: string) => api.get(`/v1/status-pages/${id}`)],
    ['update', (id: string) => api.put(`/v1/status-pages/${id}`, page('nowhere'))],
    ['delete', (id: string) => api.delete(`/v1/status-pages/${id}`)],
  ])('answers 404 to a %s of a page that does not exist', async (_name, call) => {
    const reply = await call(MISSING);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(notFound(MISSING));
  });

  it("answers 404, as for a missing one, to every call on another tenant's page, and refuses its services", async () => {
    const created = await api.post('/v1/status-pages', page('acme-only'));
    const id = created.body.id as string;
    expect((await other.get(`/v1/status-pages/${id}`)).body).toEqual(notFound(id));
    expect((await other.put(`/v1/status-pages/${id}`, { name: 'Mine', url: 'acme-only', cards: [] })).status).toBe(404);
    expect((await other.delete(`/v1/status-pages/${id}`)).status).toBe(404);
    const foreign = await other.post('/v1/status-pages', { name: 'Globex', url: 'globex', cards: [{ name: 'x', services: [{ id: web.id }] }] });
    expect(foreign.body).toEqual(badRequest(`"cards[0].services[0].id" references status-page service ${web.id}, which does not exist`, ['cards.0.services.0.id']));
    expect((await api.get(`/v1/status-pages/${id}`)).body.name).toBe('Page acme-only');
    await api.delete(`/v1/status-pages/${id}`);
  });

  it.each<[string, Record<string, unknown>, string, string[]]>([
    ['a missing url', { name: 'x', cards: [] }, '"url" is required', ['url']],
    ['a url that is not a subdomain', { name: 'x', url: 'a.b', cards: [] }, '"url" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "a.b"', ['url']],
    ['an unknown theme', { name: 'x', url: 'x', cards: [], defaultTheme: 'PINK' }, '"defaultTheme" must be one of [AUTO, DARK, LIGHT]', ['defaultTheme']],
  ])('refuses a create with %s (400 naming the field)', async (_name, body, message, keys) => {
    expect((await api.post('/v1/status-pages', body)).body).toEqual(badRequest(message, keys));
  });

  it('refuses a service listed twice on one card and a card id the page does not have, keeping the page as it was', async () => {
    const twice = await api.post('/v1/status-pages', { name: 'x', url: 'twice', cards: [{ name: 'Core', services: [{ id: web.id }, { id: web.id }] }] });
    expect(twice.body).toEqual(badRequest(`"cards[0].services[1].id" lists status-page service ${web.id} a second time on card "Core"`, ['cards.0.services.1.id']));
    const created = await api.post('/v1/status-pages', page('card-ids'));
    const reply = await api.put(`/v1/status-pages/${created.body.id}`, { name: 'x', url: 'card-ids', cards: [{ id: MISSING, name: 'x' }] });
    expect(reply.body).toEqual(badRequest(`"cards[0].id" ${MISSING} is not a card of this status page; leave it out to add a card`, ['cards.0.id']));
    expect((await api.get(`/v1/status-pages/${created.body.id}`)).body).toEqual(created.body);
    await api.delete(`/v1/status-pages/${created.body.id}`);
  });
});

describe('url and customDomain name one status page across the service', () => {
  it('refuses (409) a create with a url any page holds, in any case and in any account', async () => {
    const held = await api.post('/v1/status-pages', page('taken-page'));
    expect((await api.post('/v1/status-pages', page('Taken-Page'))).body).toEqual(taken('url', 'taken-page'));
    const elsewhere = await other.post('/v1/status-pages', { name: 'Globex', url: 'taken-page', cards: [] });
    expect(elsewhere.status).toBe(409);
    await api.delete(`/v1/status-pages/${held.body.id}`);
    const freed = await other.post('/v1/status-pages', { name: 'Globex', url: 'taken-page', cards: [] });
    expect(freed.status).toBe(201);
    await other.delete(`/v1/status-pages/${freed.body.id}`);
  });

  it('refuses (409) an update to a customDomain another page holds, and lets a page keep its own', async () => {
    const first = await api.post('/v1/status-pages', page('first', { customDomain: 'status.first.com' }));
    const second = await api.post('/v1/status-pages', page('second'));
    const reply = await api.put(`/v1/status-pages/${second.body.id}`, page('second', { customDomain: 'STATUS.first.com' }));
    expect(reply.body).toEqual(taken('customDomain', 'status.first.com'));
    expect((await api.put(`/v1/status-pages/${first.body.id}`, page('first', { name: 'First v2' }))).status).toBe(200);
    expect((await api.put(`/v1/status-pages/${second.body.id}`, page('first'))).body).toEqual(taken('url', 'first'));
    for (const created of [first, second]) await api.delete(`/v1/status-pages/${created.body.id}`);
  });
});

describe('a status-page service a card shows', () => {
  it('is not deleted (409 naming the page) until no card shows it', async () => {
    const service = (await api.post('/v1/status-pages/services', { name: 'Search' })).body;
    const created = await api.post('/v1/status-pages', { name: 'Search status', url: 'search', cards: [{ name: 'Search', services: [{ id: service.id }] }] });
    const refused = await api.delete(`/v1/status-pages/services/${service.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Status-page service ${service.id} is still shown on status pages: "Search status" (${created.body.id})`);
    await api.delete(`/v1/status-pages/${created.body.id}`);
    expect((await api.delete(`/v1/status-pages/services/${service.id}`)).status).toBe(204);
  });
});

import { BatchAnalyticsItem, CHECK_RESULT_FIELDS, CheckResultPage, RUNTIME_IDS, Runtime } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { startServer, type RunningServer } from '../start.js';
import { apiFor } from '../test-support.js';

// Key `both` belongs to acme (its default) and globex; key `solo` only to globex.
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    seed: SEED,
    checkResponses: true,
    accounts: [
      { apiKey: 'both', accountId: 'acme' },
      { apiKey: 'both', accountId: 'globex', name: 'Globex Inc' },
      { apiKey: 'solo', accountId: 'globex' },
    ],
  });
});
afterAll(() => server.close());

const FINAL_IDS_NEWEST_FIRST = ['rel1', 'rel2', 'rel3', 'rel4', 'rel5', 'rel6', 'r5', 'r4', 'r3', 'r2', 'r1'];

describe('account headers', () => {
  it('x-checkly-account selects an account of the key like x-service-account', async () => {
    const reply = await apiFor(server, 'both').get(`/v1/checks/${IDS.otherTenantCheck}`, { headers: { 'x-checkly-account': 'globex' } });
    expect(reply.status).toBe(200);
    expect((await apiFor(server, 'both').get(`/v1/checks/${IDS.otherTenantCheck}`)).status).toBe(404);
  });

  it.each([['x-service-account'], ['x-checkly-account']])('%s naming an account the key does not reach is 403', async (header) => {
    const reply = await apiFor(server, 'solo').get('/v1/checks', { headers: { [header]: 'acme' } });
    expect([reply.status, reply.body.message]).toEqual([403, 'API key has no access to account acme']);
  });

  it('a reachable x-service-account does not cover an unreachable x-checkly-account', async () => {
    const reply = await apiFor(server, 'solo').get('/v1/checks', { headers: { 'x-service-account': 'globex', 'x-checkly-account': 'acme' } });
    expect([reply.status, reply.body.message]).toEqual([403, 'API key has no access to account acme']);
  });

  it('the two headers naming two different accounts of the key is 400', async () => {
    const reply = await apiFor(server, 'both').get('/v1/checks', { headers: { 'x-service-account': 'acme', 'x-checkly-account': 'globex' } });
    expect([reply.status, reply.body.message]).toEqual([
      400,
      'x-service-account (acme) and x-checkly-account (globex) name different accounts; send one of them',
    ]);
  });
});

describe('/next/accounts', () => {
  it('answers like /v1/accounts', async () => {
    const api = apiFor(server, 'both');
    expect((await api.get('/next/accounts')).body).toEqual((await api.get('/v1/accounts')).body);
    const one = await api.get('/next/accounts/globex', { headers: { 'x-checkly-account': 'globex' } });
    expect([one.status, one.body.id, one.body.name]).toEqual([200, 'globex', 'Globex Inc']);
  });

  it('answers 404 for an account the key does not belong to', async () => {
    expect((await apiFor(server, 'solo').get('/next/accounts/acme')).status).toBe(404);
  });
});

describe('/v1/runtimes', () => {
  it('lists every runtime id Vigil knows, newest CURRENT', async () => {
    const reply = await apiFor(server, 'both').get('/v1/runtimes');
    expect(reply.body.map((runtime: Runtime) => runtime.name)).toEqual([...RUNTIME_IDS]);
    expect(reply.body[0]).toMatchObject({ name: '2026.04', stage: 'CURRENT', nodeJsVersion: 'v24' });
    expect(reply.body[1]).toMatchObject({ name: '2025.04', stage: 'STABLE', nodeJsVersion: 'v22' });
  });
});

describe('GET /v1/checks search and tag[]', () => {
  it('tag[] filters like tag', async () => {
    const reply = await apiFor(server, 'both').get('/v1/checks?tag[]=web&tag[]=critical');
    expect(reply.body.map((check: { id: string }) => check.id)).toEqual([IDS.apiCheck]);
    expect((await apiFor(server, 'both').get('/v1/checks?tag[]=web&tag[]=nope')).body).toEqual([]);
  });

  it('search matches part of the name, case-insensitively, with % as a plain character', async () => {
    expect((await apiFor(server, 'both').get('/v1/checks?search=homePAGE')).body.map((check: { name: string }) => check.name)).toEqual(['Homepage API']);
    expect((await apiFor(server, 'both').get('/v1/checks?search=%25')).body).toEqual([]);
  });
});

describe('GET /v2/check-results/{checkId}', () => {
  it('pages FINAL results newest first by cursor until nextId is null', async () => {
    const api = apiFor(server, 'both');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&nextId=${cursor}`;
      const reply = await api.get(`/v2/check-results/${IDS.apiCheck}?limit=4${query}`);
      expect(reply.status).toBe(200);
      const page = CheckResultPage.parse(reply.body);
      expect(page.length).toBe(page.entries.length);
      seen.push(...page.entries.map((entry) => entry.id!));
      for (const entry of reply.body.entries) expect(entry).toHaveProperty('traceId', null);
      cursor = page.nextId;
      pages += 1;
    } while (cursor !== null);
    expect([pages, seen]).toEqual([3, FINAL_IDS_NEWEST_FIRST]);
  });

  it('projects to fields, filters by resultType and window', async () => {
    const reply = await apiFor(server, 'both').get(
      `/v2/check-results/${IDS.apiCheck}?resultType=ATTEMPT&fields=id,runLocation,createdAt&from=1767607200&to=1767610800`,
    );
    expect(reply.body).toEqual({
      length: 1,
      entries: [{ id: 'a1', runLocation: 'eu-west-1', createdAt: '2026-01-05T10:09:00.000Z' }],
      nextId: null,
    });
  });

  it('refuses a cursor it did not give out', async () => {
    const reply = await apiFor(server, 'both').get(`/v2/check-results/${IDS.apiCheck}?nextId=bm9wZQ`);
    expect([reply.status, reply.body.message, reply.body.validation]).toEqual([
      400,
      '"nextId" is not a cursor this service gave out; pass the nextId of the previous page',
      { source: 'query', keys: ['nextId'] },
    ]);
  });

  it.each([
    ['a time before 1970', '-5.r1'],
    ['an id longer than any result has', `1767607200000.${'x'.repeat(256)}`],
  ])('refuses a cursor naming %s as one it did not give out', async (_what, position) => {
    const reply = await apiFor(server, 'both').get(`/v2/check-results/${IDS.apiCheck}?nextId=${Buffer.from(position).toString('base64url')}`);
    expect([reply.status, reply.body.message]).toEqual([400, '"nextId" is not a cursor this service gave out; pass the nextId of the previous page']);
  });

  it('a checkType other than the check\'s matches nothing', async () => {
    expect((await apiFor(server, 'both').get(`/v2/check-results/${IDS.apiCheck}?checkType=TCP`)).body).toEqual({ length: 0, entries: [], nextId: null });
  });

  it.each([
    ['fields=id,bogus', 'fields.1', `"fields[1]" must be one of [${CHECK_RESULT_FIELDS.join(', ')}]`],
    ['from=200&to=100', 'to', '"to" must be greater than "from"'],
    ['limit=101', 'limit', '"limit" must be less than or equal to 100'],
    ['resultType=SOME', 'resultType', '"resultType" must be one of [FINAL, ATTEMPT, ALL]'],
  ])('refuses %s, naming %s', async (query, key, message) => {
    const reply = await apiFor(server, 'both').get(`/v2/check-results/${IDS.apiCheck}?${query}`);
    expect([reply.status, reply.body.validation, reply.body.message]).toEqual([400, { source: 'query', keys: [key] }, message]);
  });

  it("answers 404 for another tenant's check", async () => {
    expect((await apiFor(server, 'both').get(`/v2/check-results/${IDS.otherTenantCheck}`)).status).toBe(404);
  });
});

describe('GET /v1/check-results/{checkId}/{checkResultId}', () => {
  it('reads one result of the check, 404 under another check', async () => {
    const reply = await apiFor(server, 'both').get(`/v1/check-results/${IDS.apiCheck}/r3`);
    expect([reply.status, reply.body.id, reply.body.hasFailures, reply.body.traceId]).toEqual([200, 'r3', true, null]);
    expect((await apiFor(server, 'both').get(`/v1/check-results/${IDS.tcpCheck}/r3`)).status).toBe(404);
  });

  it('answers 404 for an id longer than any result has', async () => {
    const id = 'r'.repeat(256);
    const reply = await apiFor(server, 'both').get(`/v1/check-results/${IDS.apiCheck}/${id}`);
    expect([reply.status, reply.body.message]).toEqual([404, `Check result ${id} not found`]);
  });
});

describe('GET /v1/error-groups/{id}', () => {
  it('reads a group listed for the check; another tenant sees 404', async () => {
    const [group] = (await apiFor(server, 'both').get(`/v1/error-groups/checks/${IDS.apiCheck}`)).body;
    const reply = await apiFor(server, 'both').get(`/v1/error-groups/${group.id}`);
    expect(reply.body).toEqual(group);
    expect((await apiFor(server, 'solo').get(`/v1/error-groups/${group.id}`)).status).toBe(404);
  });
});

describe('POST /v1/analytics/checks', () => {
  it("answers each of the account's checks with availability and percentiles, leaving out unknown ids", async () => {
    const reply = await apiFor(server, 'both').post('/v1/analytics/checks?quickRange=last7Days', {
      checkIds: [IDS.apiCheck, IDS.otherTenantCheck, 'nope'],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(1);
    const item = BatchAnalyticsItem.parse(reply.body[0]);
    expect(item).toMatchObject({ checkId: IDS.apiCheck, checkType: 'API', latency_avg: null });
    expect(typeof item.availability).toBe('number');
  });

  it('refuses more than 100 ids and an unknown quickRange', async () => {
    const many = await apiFor(server, 'both').post('/v1/analytics/checks', { checkIds: Array.from({ length: 101 }, (_, i) => `c${i}`) });
    expect([many.status, many.body.validation?.keys, many.body.message]).toEqual([400, ['checkIds'], '"checkIds" must contain less than or equal to 100 items']);
    const range = await apiFor(server, 'both').post('/v1/analytics/checks?quickRange=last30Days', { checkIds: [IDS.apiCheck] });
    expect([range.status, range.body.validation?.keys, range.body.message]).toEqual([400, ['quickRange'], '"quickRange" must be one of [last24Hours, last7Days, thisWeek, lastWeek, lastMonth]']);
  });
});

describe('GET /v1/status-pages/incidents', () => {
  it('pages the latest incidents first by cursor; another tenant sees none of them', async () => {
    const api = apiFor(server, 'both');
    const serviceId = (await api.post('/v1/status-pages/services', { name: 'Checkout' })).body.id;
    const names = ['first', 'second', 'third'];
    for (const name of names) {
      expect((await api.post('/v1/status-pages/incidents', { name, severity: 'MINOR', services: [{ id: serviceId }] })).status).toBe(201);
    }
    const first = await api.get('/v1/status-pages/incidents?limit=2');
    expect([first.status, first.body.length, first.body.entries.map((incident: { name: string }) => incident.name)]).toEqual([200, 2, ['third', 'second']]);
    expect(first.body.entries[0].services[0].id).toBe(serviceId);
    const second = await api.get(`/v1/status-pages/incidents?limit=2&nextId=${first.body.nextId}`);
    expect([second.body.entries.map((incident: { name: string }) => incident.name), second.body.nextId]).toEqual([['first'], null]);
    expect((await apiFor(server, 'solo').get('/v1/status-pages/incidents')).body).toEqual({ length: 0, entries: [], nextId: null });
  });

  it('PATCH changes only the fields sent, like PUT', async () => {
    const api = apiFor(server, 'both');
    const serviceId = (await api.post('/v1/status-pages/services', { name: 'Search' })).body.id;
    const created = (await api.post('/v1/status-pages/incidents', { name: 'Slow search', severity: 'MINOR', services: [{ id: serviceId }] })).body;
    const patched = await api.call('PATCH', `/v1/status-pages/incidents/${created.id}`, { body: { severity: 'CRITICAL' } });
    expect([patched.status, patched.body.severity, patched.body.name]).toEqual([200, 'CRITICAL', 'Slow search']);
    const wrong = await api.call('PATCH', `/v1/status-pages/incidents/${created.id}`, { body: { severity: 'HUGE' } });
    expect([wrong.status, wrong.body.validation]).toEqual([400, { source: 'payload', keys: ['severity'] }]);
    expect((await apiFor(server, 'solo').call('PATCH', `/v1/status-pages/incidents/${created.id}`, { body: { severity: 'MINOR' } })).status).toBe(404);
  });

  it('refuses a cursor it did not give out', async () => {
    const reply = await apiFor(server, 'both').get('/v1/status-pages/incidents?nextId=bm9wZQ');
    expect([reply.status, reply.body.message]).toEqual([400, '"nextId" is not a cursor this service gave out; pass the nextId of the previous page']);
  });
});

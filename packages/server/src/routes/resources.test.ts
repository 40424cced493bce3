/** Check groups, maintenance windows, status-page services and alert channels over plain HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('check groups', () => {
  it('creates a group with the documented defaults and FALLBACK retry strategy', async () => {
    const reply = await api.post('/v2/check-groups?autoAssignAlerts=false', { name: 'Payments' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      name: 'Payments',
      activated: true,
      muted: false,
      concurrency: 3,
      retryStrategy: 'FALLBACK',
      // v2 defaults: each check keeps its own scheduling and alert settings.
      runParallel: null,
      useGlobalAlertSettings: null,
      doubleCheck: false,
      tags: [],
      locations: [],
      environmentVariables: [],
      alertChannelSubscriptions: [],
      runtimeId: null,
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: { username: '', password: '' } },
      alertSettings: { escalationType: 'RUN_BASED' },
      updated_at: null,
    });
    expect(Number.isInteger(reply.body.id)).toBe(true);
  });

  it('merges a PUT, requires its name, and lists and gets the group', async () => {
    const created = await api.post('/v2/check-groups', { name: 'Search', tags: ['a'], concurrency: 5 });
    const updated = await api.put(`/v2/check-groups/${created.body.id}`, { name: 'Search v2', tags: [] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Search v2', tags: [], concurrency: 5 });
    expect((await api.get(`/v1/check-groups/${created.body.id}`)).body.name).toBe('Search v2');
    const noName = await api.put(`/v2/check-groups/${created.body.id}`, { tags: ['x'] });
    expect(noName.status).toBe(400);
    expect(noName.body.validation).toEqual({ source: 'payload', keys: ['name'] });
    const list = await api.get('/v1/check-groups?limit=100');
    expect(list.body.map((group: { id: number }) => group.id)).toContain(created.body.id);
  });

  it.each([
    { name: 'concurrency below 1', body: { name: 'g', concurrency: 0 }, keys: ['concurrency'] },
    { name: 'missing name', body: {}, keys: ['name'] },
    { name: 'unknown retry strategy', body: { name: 'g', retryStrategy: 'SOMETIMES' }, keys: ['retryStrategy'] },
    {
      name: 'more than 50 environment variables',
      body: { name: 'g', environmentVariables: Array.from({ length: 51 }, (_, i) => ({ key: `K${i}`, value: 'v' })) },
      keys: ['environmentVariables'],
    },
  ])('refuses $name', async ({ body, keys }) => {
    const reply = await api.post('/v2/check-groups', body);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys });
  });

  it('refuses to delete a group that still holds checks (409 naming them), then deletes it once empty', async () => {
    const group = await api.post('/v2/check-groups', { name: 'Busy' });
    const first = await api.post('/v1/checks/api', apiCheckBody({ groupId: group.body.id }));
    const second = await api.post('/v1/checks/api', apiCheckBody({ groupId: group.body.id }));
    const refused = await api.delete(`/v1/check-groups/${group.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: `Check group ${group.body.id} still holds checks: ${first.body.id}, ${second.body.id}. Remove them from the group or delete them first.`,
    });
    await api.put(`/v1/checks/api/${first.body.id}`, { groupId: null });
    await api.delete(`/v1/checks/${second.body.id}`);
    expect((await api.delete(`/v1/check-groups/${group.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/check-groups/${group.body.id}`)).status).toBe(404);
  });
});

describe('maintenance windows', () => {
  const window = { name: 'Deploy', startsAt: '2030-01-01T02:00:00.000Z', endsAt: '2030-01-01T03:00:00.000Z', repeatUnit: 'DAY' };

  it('creates, gets, merges, lists and deletes a window', async () => {
    const created = await api.post('/v1/maintenance-windows', { ...window, tags: ['prod'], repeatInterval: 1 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...window, tags: ['prod'], repeatInterval: 1, repeatEndsAt: null, updated_at: null });
    const id = created.body.id as number;
    expect((await api.get(`/v1/maintenance-windows/${id}`)).body.name).toBe('Deploy');
    const updated = await api.put(`/v1/maintenance-windows/${id}`, { name: 'Deploy (weekly)', repeatUnit: 'WEEK' });
    expect(updated.body).toMatchObject({ name: 'Deploy (weekly)', repeatUnit: 'WEEK', tags: ['prod'], startsAt: window.startsAt });
    const list = await api.get('/v1/maintenance-windows');
    expect(list.body.map((item: { id: number }) => item.id)).toContain(id);
    expect((await api.delete(`/v1/maintenance-windows/${id}`)).status).toBe(204);
    expect((await api.get(`/v1/maintenance-windows/${id}`)).status).toBe(404);
  });

  it.each([
    { name: 'missing required fields', body: {}, keys: ['name', 'startsAt', 'endsAt', 'repeatUnit'] },
    { name: 'repeatInterval below 1', body: { ...window, repeatInterval: 0 }, keys: ['repeatInterval'] },
    { name: 'an end before the start', body: { ...window, endsAt: '2029-12-31T00:00:00.000Z' }, keys: ['endsAt'] },
    { name: 'a date that is not a date', body: { ...window, startsAt: 'tomorrow' }, keys: ['startsAt'] },
    { name: 'a name over 200 characters', body: { ...window, name: 'n'.repeat(201) }, keys: ['name'] },
  ])('refuses $name', async ({ body, keys }) => {
    const reply = await api.post('/v1/maintenance-windows', body);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys });
  });

  it('stores and returns timezone, pauseAllChecks and silenceAllAlerts; a PUT that omits them keeps them', async () => {
    const created = await api.post('/v1/maintenance-windows', { ...window, timezone: 'Europe/Amsterdam', pauseAllChecks: true, silenceAllAlerts: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ timezone: 'Europe/Amsterdam', pauseAllChecks: true, silenceAllAlerts: true });
    const renamed = await api.put(`/v1/maintenance-windows/${created.body.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', timezone: 'Europe/Amsterdam', pauseAllChecks: true, silenceAllAlerts: true });
    const reset = await api.put(`/v1/maintenance-windows/${created.body.id}`, { timezone: null, silenceAllAlerts: false });
    expect((await api.get(`/v1/maintenance-windows/${created.body.id}`)).body).toMatchObject({ timezone: null, pauseAllChecks: true, silenceAllAlerts: false });
    expect(reset.status).toBe(200);
    const plain = await api.post('/v1/maintenance-windows', window);
    expect(plain.body).toMatchObject({ timezone: null, pauseAllChecks: false, silenceAllAlerts: false });
  });

  it('refuses a timezone that is a UTC offset, naming the field', async () => {
    const reply = await api.post('/v1/maintenance-windows', { ...window, timezone: '+05:00' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      message: '"timezone" must be a named IANA time zone such as "Europe/Amsterdam" or "UTC", got "+05:00"',
      validation: { source: 'payload', keys: ['timezone'] },
    });
  });

  it('checks the merged window on PUT: moving only the end before the start is refused', async () => {
    const created = await api.post('/v1/maintenance-windows', window);
    const reply = await api.put(`/v1/maintenance-windows/${created.body.id}`, { endsAt: '2029-01-01T00:00:00.000Z' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"endsAt" must be after "startsAt"', validation: { source: 'payload', keys: ['endsAt'] } });
  });
});

describe('status-page services', () => {
  it('creates, gets, renames, lists and deletes a service', async () => {
    const created = await api.post('/v1/status-pages/services', { name: 'API' });
    // 200, as the real document answers this create.
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'API', accountId: 'acme', checks: [], updated_at: null });
    expect(typeof created.body.id).toBe('string');
    const renamed = await api.put(`/v1/status-pages/services/${created.body.id}`, { name: 'Public API' });
    expect(renamed.body.name).toBe('Public API');
    expect((await api.get(`/v1/status-pages/services/${created.body.id}`)).body.name).toBe('Public API');
    const list = await api.get('/v1/status-pages/services?limit=100');
    expect(list.body.entries.map((service: { id: string }) => service.id)).toContain(created.body.id);
    expect((await api.delete(`/v1/status-pages/services/${created.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/status-pages/services/${created.body.id}`)).status).toBe(404);
  });

  it('lists services as the real document does: {length, entries, nextId}, oldest first, by cursor', async () => {
    const fresh = await startTestServer();
    try {
      const names = ['A', 'B', 'C', 'D', 'E'];
      for (const name of names) await fresh.post('/v1/status-pages/services', { name });
      const seen: string[] = [];
      let nextId: string | null = null;
      let pages = 0;
      do {
        const reply = await fresh.get(`/v1/status-pages/services?limit=2${nextId ? `&nextId=${nextId}` : ''}`);
        expect(reply.status).toBe(200);
        expect(reply.body.length).toBe(reply.body.entries.length);
        seen.push(...reply.body.entries.map((service: { name: string }) => service.name));
        nextId = reply.body.nextId;
        pages += 1;
      } while (nextId !== null);
      expect([pages, seen]).toEqual([3, names]);
      // Without a limit: 20 a page, as the real document's default.
      expect((await fresh.get('/v1/status-pages/services')).body).toMatchObject({ length: 5, nextId: null });
      const bad = await fresh.get('/v1/status-pages/services?nextId=bm9wZQ');
      expect(bad.status).toBe(400);
      expect(bad.body.validation).toEqual({ source: 'query', keys: ['nextId'] });
    } finally {
      await fresh.close();
    }
  });

  it('lists the checks that open incidents on it, and refuses deletion while they do', async () => {
    const service = await api.post('/v1/status-pages/services', { name: 'Checkout' });
    const check = await api.post(
      '/v1/checks/api',
      apiCheckBody({ name: 'Checkout API', triggerIncident: { serviceId: service.body.id, severity: 'MAJOR', name: 'Checkout down' } }),
    );
    expect((await api.get(`/v1/status-pages/services/${service.body.id}`)).body.checks).toEqual([{ id: check.body.id, name: 'Checkout API' }]);
    const refused = await api.delete(`/v1/status-pages/services/${service.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Status-page service ${service.body.id} is still used by checks: ${check.body.id}`);
    await api.put(`/v1/checks/api/${check.body.id}`, { triggerIncident: null });
    expect((await api.delete(`/v1/status-pages/services/${service.body.id}`)).status).toBe(204);
  });

  it('refuses an empty name', async () => {
    const reply = await api.post('/v1/status-pages/services', { name: '' });
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys: ['name'] });
  });
});

describe('alert channels', () => {
  it.each([
    ['EMAIL', { address: 'ops@example.com' }],
    ['SLACK', { url: 'https://hooks.slack.com/services/x', channel: '#ops' }],
    ['WEBHOOK', { name: 'hook', url: 'https://example.com/hook', method: 'POST', headers: [], queryParameters: [] }],
    ['SMS', { name: 'on-call', number: '+15550100' }],
    ['CALL', { name: 'on-call', number: '+15550100' }],
    ['PAGERDUTY', { serviceKey: 'abc123' }],
    ['OPSGENIE', { name: 'ops', apiKey: 'key', region: 'EU', priority: 'P1' }],
  ])('creates a %s channel with the documented defaults', async (type, config) => {
    const reply = await api.post('/v1/alert-channels', { type, config });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      type,
      config,
      sendRecovery: true,
      sendFailure: true,
      sendDegraded: false,
      sslExpiry: false,
      sslExpiryThreshold: 30,
      autoSubscribe: false,
      subscriptions: [],
    });
  });

  it.each([
    { name: 'an unknown type', body: { type: 'PIGEON', config: {} }, keys: ['type'] },
    { name: 'an invalid e-mail address', body: { type: 'EMAIL', config: { address: 'nope' } }, keys: ['config.address'] },
    { name: 'sslExpiryThreshold above 30', body: { type: 'EMAIL', config: { address: 'a@b.co' }, sslExpiryThreshold: 31 }, keys: ['sslExpiryThreshold'] },
    { name: 'sslExpiryThreshold below 1', body: { type: 'EMAIL', config: { address: 'a@b.co' }, sslExpiryThreshold: 0 }, keys: ['sslExpiryThreshold'] },
    { name: 'an opsgenie region outside EU/US', body: { type: 'OPSGENIE', config: { name: 'o', apiKey: 'k', region: 'APAC', priority: 'P1' } }, keys: ['config.region'] },
  ])('refuses $name', async ({ body, keys }) => {
    const reply = await api.post('/v1/alert-channels', body);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys });
  });

  it('lists its subscribers, merges a PUT, refuses a type change, and unsubscribes everyone on delete', async () => {
    const fresh = await startTestServer();
    try {
      const channel = await fresh.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
      const check = await fresh.post('/v1/checks/api', apiCheckBody());
      const group = await fresh.post('/v2/check-groups', { name: 'g' });
      const read = await fresh.get(`/v1/alert-channels/${channel.body.id}`);
      expect(read.body.subscriptions).toEqual([
        { id: expect.any(Number), checkId: check.body.id, groupId: null, activated: true },
        { id: expect.any(Number), checkId: null, groupId: group.body.id, activated: true },
      ]);

      const updated = await fresh.put(`/v1/alert-channels/${channel.body.id}`, { type: 'EMAIL', config: { address: 'ops@example.com' }, sendDegraded: true });
      expect(updated.body).toMatchObject({ sendDegraded: true, sendRecovery: true, config: { address: 'ops@example.com' } });
      // The real document requires config on this PUT.
      const withoutConfig = await fresh.put(`/v1/alert-channels/${channel.body.id}`, { type: 'EMAIL', sendDegraded: false });
      expect(withoutConfig.status).toBe(400);
      expect(withoutConfig.body).toMatchObject({ message: '"config" is required', validation: { source: 'payload', keys: ['config'] } });
      const retyped = await fresh.put(`/v1/alert-channels/${channel.body.id}`, { type: 'SLACK', config: { url: 'https://hooks.slack.com/x', channel: '#ops' } });
      expect(retyped.status).toBe(400);
      expect(retyped.body.validation).toEqual({ source: 'payload', keys: ['type'] });

      expect((await fresh.get('/v1/alert-channels')).body).toHaveLength(1);
      expect((await fresh.delete(`/v1/alert-channels/${channel.body.id}`)).status).toBe(204);
      expect((await fresh.get(`/v1/checks/${check.body.id}`)).body.alertChannelSubscriptions).toEqual([]);
      expect((await fresh.get(`/v1/check-groups/${group.body.id}`)).body.alertChannelSubscriptions).toEqual([]);
      expect((await fresh.get(`/v1/alert-channels/${channel.body.id}`)).status).toBe(404);
    } finally {
      await fresh.close();
    }
  });
});

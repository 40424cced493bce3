import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, multiStepCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('POST /v1/checks/api', () => {
  it('accepts runtime 2026.04, which the real document lists', async () => {
    const reply = await api.post('/v1/checks/api', apiCheckBody({ runtimeId: '2026.04' }));
    expect(reply.status).toBe(201);
    expect(reply.body.runtimeId).toBe('2026.04');
    const group = await api.post('/v2/check-groups', { name: 'Runtime group', runtimeId: '2026.04' });
    expect(group.status).toBe(201);
  });

  it('creates an API check with every server-side fill-in', async () => {
    const reply = await api.post('/v1/checks/api', apiCheckBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      name: 'Homepage',
      checkType: 'API',
      activated: true,
      muted: false,
      doubleCheck: true,
      shouldFail: false,
      frequency: 10,
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      locations: [],
      tags: [],
      groupId: null,
      groupOrder: null,
      runtimeId: null,
      retryStrategy: null,
      alertChannelSubscriptions: [],
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
      alertSettings: {
        escalationType: 'RUN_BASED',
        runBasedEscalation: { failedRunThreshold: 1 },
        timeBasedEscalation: { minutesFailingThreshold: 5 },
        reminders: { amount: 0, interval: 5 },
        parallelRunFailureThreshold: { enabled: false, percentage: 10 },
      },
      request: {
        method: 'GET',
        url: 'https://example.com',
        followRedirects: true,
        skipSSL: false,
        ipFamily: 'IPv4',
        body: '',
        bodyType: 'NONE',
        headers: [],
        queryParameters: [],
        assertions: [],
        basicAuth: { username: '', password: '' },
      },
      updated_at: null,
    });
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(reply.body.created_at))).toBe(false);
    expect(reply.body.frequencyOffset).toBeGreaterThanOrEqual(1);
    expect(reply.body.frequencyOffset).toBeLessThanOrEqual(100);
  });

  it('assigns a sub-minute offset of 10 for frequency 0 and keeps a sent offset', async () => {
    expect((await api.post('/v1/checks/api', apiCheckBody({ frequency: 0 }))).body.frequencyOffset).toBe(10);
    expect((await api.post('/v1/checks/api', apiCheckBody({ frequency: 720, frequencyOffset: 12 }))).body.frequencyOffset).toBe(12);
  });

  it.each([
    { name: 'missing name and request', body: {}, keys: ['name', 'request'] },
    { name: 'frequency outside the value set', body: apiCheckBody({ frequency: 3 }), keys: ['frequency'] },
    { name: 'sub-minute offset not 10/20/30', body: apiCheckBody({ frequency: 0, frequencyOffset: 15 }), keys: ['frequencyOffset'] },
    { name: 'offset above frequency × 10', body: apiCheckBody({ frequency: 5, frequencyOffset: 51 }), keys: ['frequencyOffset'] },
    { name: 'offset above ceil(frequency / 60)', body: apiCheckBody({ frequency: 720, frequencyOffset: 13 }), keys: ['frequencyOffset'] },
    { name: 'offset below 1', body: apiCheckBody({ frequencyOffset: 0 }), keys: ['frequencyOffset'] },
    { name: 'degradedResponseTime above 30000', body: apiCheckBody({ degradedResponseTime: 30001 }), keys: ['degradedResponseTime'] },
    { name: 'maxResponseTime below 0', body: apiCheckBody({ maxResponseTime: -1 }), keys: ['maxResponseTime'] },
    { name: 'negative groupOrder', body: apiCheckBody({ groupOrder: -1 }), keys: ['groupOrder'] },
    { name: 'unknown location', body: apiCheckBody({ locations: ['mars-1'] }), keys: ['locations.0'] },
    { name: 'unknown runtime', body: apiCheckBody({ runtimeId: '2019.01' }), keys: ['runtimeId'] },
    { name: 'request without url', body: { name: 'x', request: {} }, keys: ['request.url'] },
    { name: 'group that does not exist', body: apiCheckBody({ groupId: 999999 }), keys: ['groupId'] },
    {
      name: 'alert channel that does not exist',
      body: apiCheckBody({ alertChannelSubscriptions: [{ alertChannelId: 999999, activated: true }] }),
      keys: ['alertChannelSubscriptions.0.alertChannelId'],
    },
    {
      name: 'incident service that does not exist',
      body: apiCheckBody({ triggerIncident: { serviceId: 'nope', severity: 'MINOR', name: 'down' } }),
      keys: ['triggerIncident.serviceId'],
    },
  ])('refuses $name with 400 naming $keys', async ({ body, keys }) => {
    const reply = await api.post('/v1/checks/api', body, { headers: {} });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, error: 'Bad Request', validation: { source: 'payload', keys } });
    expect(typeof reply.body.message).toBe('string');
  });

  it('refuses a bad autoAssignAlerts query value', async () => {
    const reply = await api.post('/v1/checks/api?autoAssignAlerts=maybe', apiCheckBody());
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'query', keys: ['autoAssignAlerts'] });
  });
});

describe('POST /v1/checks/multistep', () => {
  it('creates a multi-step check and hides secret variable values', async () => {
    const reply = await api.post(
      '/v1/checks/multistep',
      multiStepCheckBody({
        environmentVariables: [
          { key: 'TOKEN', value: 's3cret', locked: true, secret: true },
          { key: 'REGION', value: 'eu', locked: false, secret: false },
        ],
      }),
    );
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ checkType: 'MULTI_STEP', frequency: 10, script: 'export default async () => {}' });
    expect(reply.body.environmentVariables).toEqual([
      { key: 'TOKEN', value: null, locked: true, secret: true },
      { key: 'REGION', value: 'eu', locked: false, secret: false },
    ]);
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body.environmentVariables[0].value).toBeNull();
  });

  it.each([
    { name: 'missing script', body: { name: 'x' }, keys: ['script'] },
    { name: 'sub-minute frequency', body: multiStepCheckBody({ frequency: 0 }), keys: ['frequency'] },
    {
      name: 'more than 50 environment variables',
      body: multiStepCheckBody({ environmentVariables: Array.from({ length: 51 }, (_, i) => ({ key: `K${i}`, value: 'v' })) }),
      keys: ['environmentVariables'],
    },
  ])('refuses $name', async ({ body, keys }) => {
    const reply = await api.post('/v1/checks/multistep', body);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys });
  });
});

describe('POST /v1/checks (generic)', () => {
  const heartbeat = { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' };

  it('creates a check of the given type', async () => {
    const reply = await api.post('/v1/checks', { name: 'Nightly job', checkType: 'HEARTBEAT', heartbeat, script: null });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ checkType: 'HEARTBEAT', name: 'Nightly job', heartbeat });
    expect(typeof reply.body.id).toBe('string');
  });

  it('requires name, checkType, heartbeat and script', async () => {
    const reply = await api.post('/v1/checks', {});
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys: ['name', 'checkType', 'heartbeat', 'script'] });
  });
});

describe('GET /v1/checks', () => {
  it('pages in creation order with content-range and link, filtered by tag and checkType', async () => {
    const fresh = await startTestServer();
    try {
      const created: string[] = [];
      for (let i = 0; i < 7; i += 1) {
        const body = i % 2 === 0 ? apiCheckBody({ name: `api ${i}`, tags: ['prod', `n${i}`] }) : multiStepCheckBody({ name: `ms ${i}`, tags: ['prod'] });
        const reply = await fresh.post(i % 2 === 0 ? '/v1/checks/api' : '/v1/checks/multistep', body);
        created.push(reply.body.id);
      }
      const first = await fresh.get('/v1/checks?limit=3');
      expect(first.body.map((check: { id: string }) => check.id)).toEqual(created.slice(0, 3));
      expect(first.headers.get('content-range')).toBe('0-2/7');
      expect(first.headers.get('link')).toBe(
        `<${fresh.server.url}/v1/checks?limit=3&page=2>; rel="next", <${fresh.server.url}/v1/checks?limit=3&page=3>; rel="last"`,
      );
      const last = await fresh.get('/v1/checks?limit=3&page=3');
      expect(last.body.map((check: { id: string }) => check.id)).toEqual(created.slice(6));
      expect(last.headers.get('content-range')).toBe('6-6/7');

      const defaults = await fresh.get('/v1/checks');
      expect(defaults.body).toHaveLength(7);
      expect(defaults.headers.get('content-range')).toBe('0-6/7');

      const apiOnly = await fresh.get('/v1/checks?checkType=API');
      expect(apiOnly.body.map((check: { name: string }) => check.name)).toEqual(['api 0', 'api 2', 'api 4', 'api 6']);
      const tagged = await fresh.get('/v1/checks?tag=prod&tag=n2');
      expect(tagged.body.map((check: { name: string }) => check.name)).toEqual(['api 2']);
      expect(tagged.headers.get('content-range')).toBe('0-0/1');
    } finally {
      await fresh.close();
    }
  });

  it('shows each check exactly as GET /v1/checks/{id} does (alert channel summary, hidden secrets)', async () => {
    const fresh = await startTestServer();
    try {
      await fresh.post('/v1/alert-channels', { type: 'SMS', config: { name: 'on-call', number: '+15550100' } });
      const plain = await fresh.post('/v1/checks/api', apiCheckBody());
      const secret = await fresh.post(
        '/v1/checks/multistep?autoAssignAlerts=false',
        multiStepCheckBody({ environmentVariables: [{ key: 'TOKEN', value: 's3cret', locked: false, secret: true }] }),
      );
      const list = await fresh.get('/v1/checks');
      expect(list.body).toEqual([(await fresh.get(`/v1/checks/${plain.body.id}`)).body, (await fresh.get(`/v1/checks/${secret.body.id}`)).body]);
      expect(list.body[0].alertChannels.sms).toEqual([{ number: '+15550100', name: 'on-call' }]);
      expect(list.body[1].environmentVariables[0].value).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=ten', ['limit']],
    ['page=0', ['page']],
    ['checkType=FTP', ['checkType']],
  ])('refuses ?%s with 400 naming %j', async (query, keys) => {
    const reply = await api.get(`/v1/checks?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'query', keys });
  });
});

describe('PUT /v1/checks/api/{id} (merge)', () => {
  it('changes only the fields sent, clears lists with [] and the group with null', async () => {
    const group = await api.post('/v2/check-groups', { name: 'Team' });
    const created = await api.post(
      '/v1/checks/api',
      apiCheckBody({ tags: ['a', 'b'], locations: ['eu-west-1'], groupId: group.body.id, muted: true }),
    );
    const id = created.body.id as string;

    const renamed = await api.put(`/v1/checks/api/${id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', tags: ['a', 'b'], locations: ['eu-west-1'], groupId: group.body.id, muted: true });
    expect(renamed.body.created_at).toBe(created.body.created_at);
    expect(renamed.body.updated_at).not.toBeNull();

    const cleared = await api.put(`/v1/checks/api/${id}`, { tags: [], groupId: null });
    expect(cleared.body).toMatchObject({ name: 'Renamed', tags: [], locations: ['eu-west-1'], groupId: null });
    expect((await api.get(`/v1/checks/${id}`)).body).toMatchObject({ tags: [], groupId: null, name: 'Renamed' });
  });

  it('re-assigns an offset the caller never chose when the frequency changes, and checks one it did', async () => {
    const created = await api.post('/v1/checks/api', apiCheckBody({ frequency: 60, frequencyOffset: 600 }));
    const slower = await api.put(`/v1/checks/api/${created.body.id}`, { frequency: 720 });
    expect(slower.status).toBe(200);
    expect(slower.body.frequencyOffset).toBeLessThanOrEqual(12);

    const bad = await api.put(`/v1/checks/api/${created.body.id}`, { frequencyOffset: 50 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      message: '"frequencyOffset" must be between 1 and 12 when frequency is 720',
      validation: { source: 'payload', keys: ['frequencyOffset'] },
    });
  });

  it('answers 404 for a check of another type on a typed update', async () => {
    const multi = await api.post('/v1/checks/multistep', multiStepCheckBody());
    expect((await api.put(`/v1/checks/api/${multi.body.id}`, { name: 'x' })).status).toBe(404);
    expect((await api.put(`/v1/checks/multistep/${multi.body.id}`, { name: 'x' })).status).toBe(200);
    expect((await api.put(`/v1/checks/${multi.body.id}`, { name: 'generic' })).body.name).toBe('generic');
  });

  it('refuses to change a check\'s type with 400', async () => {
    const created = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/${created.body.id}`, { checkType: 'BROWSER' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      message: '"checkType" cannot be changed from API to BROWSER; create a new check instead',
      validation: { source: 'payload', keys: ['checkType'] },
    });
  });

  it('refuses invalid fields with 400', async () => {
    const created = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/api/${created.body.id}`, { frequency: 7, tags: 'prod' });
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys: ['tags', 'frequency'] });
  });
});

describe('autoAssignAlerts', () => {
  it('subscribes a new check to every channel unless autoAssignAlerts=false', async () => {
    const fresh = await startTestServer();
    try {
      const email = await fresh.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
      const slack = await fresh.post('/v1/alert-channels', { type: 'SLACK', config: { url: 'https://hooks.slack.com/x' } });
      const assigned = await fresh.post('/v1/checks/api', apiCheckBody());
      expect(assigned.body.alertChannelSubscriptions).toEqual([
        { alertChannelId: email.body.id, activated: true },
        { alertChannelId: slack.body.id, activated: true },
      ]);
      expect(assigned.body.alertChannels).toEqual({
        email: [{ address: 'ops@example.com' }],
        webhook: [],
        slack: [{ url: 'https://hooks.slack.com/x' }],
        sms: [],
      });
      const explicit = await fresh.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody({ alertChannelSubscriptions: [{ alertChannelId: slack.body.id, activated: false }] }));
      expect(explicit.body.alertChannelSubscriptions).toEqual([{ alertChannelId: slack.body.id, activated: false }]);
      expect(explicit.body.alertChannels.slack).toEqual([]);

      const updated = await fresh.put(`/v1/checks/api/${explicit.body.id}`, { name: 'now assigned' });
      expect(updated.body.alertChannelSubscriptions).toEqual([
        { alertChannelId: slack.body.id, activated: false },
        { alertChannelId: email.body.id, activated: true },
      ]);
      const kept = await fresh.put(`/v1/checks/api/${explicit.body.id}?autoAssignAlerts=false`, { alertChannelSubscriptions: [] });
      expect(kept.body.alertChannelSubscriptions).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('subscribes a new check to autoSubscribe channels even with autoAssignAlerts=false', async () => {
    const fresh = await startTestServer();
    try {
      const auto = await fresh.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'auto@example.com' }, autoSubscribe: true });
      await fresh.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'manual@example.com' } });
      const check = await fresh.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody());
      expect(check.body.alertChannelSubscriptions).toEqual([{ alertChannelId: auto.body.id, activated: true }]);
    } finally {
      await fresh.close();
    }
  });
});

describe('DELETE /v1/checks/{id}', () => {
  it('deletes with 204 and no body; the check is then gone', async () => {
    const created = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.delete(`/v1/checks/${created.body.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await api.get(`/v1/checks/${created.body.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/checks/${created.body.id}`)).status).toBe(404);
  });
});

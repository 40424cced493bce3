import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApi } from '../test-support.js';
import { parsePublicUrl } from './ping-urls.js';

const HEARTBEAT = { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds' };

type Heartbeat = { id: string; heartbeat: { pingToken: string; pingUrl?: string } };

async function createHeartbeat(api: TestApi, extra: Record<string, unknown> = {}): Promise<Heartbeat> {
  const created = await api.post('/v1/checks/heartbeat', { name: 'Nightly backup', heartbeat: HEARTBEAT, ...extra });
  expect(created.status).toBe(201);
  return created.body as Heartbeat;
}

describe('heartbeat monitors carry heartbeat.pingUrl', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it('on create, update, GET and in lists: the listening URL plus /ping/{pingToken}, whatever Host the caller sends', async () => {
    const check = await createHeartbeat(api);
    const expected = `${api.server.url}/ping/${check.heartbeat.pingToken}`;
    expect(check.heartbeat.pingUrl).toBe(expected);

    const updated = await api.put(`/v1/checks/heartbeat/${check.id}`, { heartbeat: { ...HEARTBEAT, period: 60 } });
    expect(updated.body.heartbeat).toEqual({ ...HEARTBEAT, period: 60, pingToken: check.heartbeat.pingToken, pingUrl: expected });

    const single = await api.get(`/v1/checks/${check.id}`, { headers: { host: 'attacker.example' } });
    expect(single.body.heartbeat.pingUrl).toBe(expected);

    await api.post('/v1/checks/api', { name: 'Homepage', request: { url: 'https://example.com' } });
    const list = await api.get('/v1/checks?limit=100');
    const listed = (list.body as Array<{ id: string; checkType: string; heartbeat?: { pingUrl?: string } }>).map((item) => [item.checkType, item.heartbeat?.pingUrl]);
    expect(listed).toContainEqual(['HEARTBEAT', expected]);
    expect(listed).toContainEqual(['API', undefined]);
  });

  it('in lists of checks subscribed to alert channels too', async () => {
    const channel = await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
    const check = await createHeartbeat(api, { alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }] });
    const list = await api.get('/v1/checks?checkType=HEARTBEAT&limit=100');
    const listed = (list.body as Heartbeat[]).find((item) => item.id === check.id);
    expect(listed?.heartbeat.pingUrl).toBe(`${api.server.url}/ping/${check.heartbeat.pingToken}`);
  });

  it('in the OpenAPI document, the ping routes, without authentication', async () => {
    const document = (await (await fetch(`${api.server.url}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, { security: unknown[] }>>;
    };
    expect(document.servers).toEqual([{ url: api.server.url }]);
    expect(Object.keys(document.paths['/ping/{token}']!)).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/ping/{token}/fail']!)).toEqual(['get', 'post']);
    expect(document.paths['/ping/{token}']!['get']!.security).toEqual([]);
  });
});

describe('--public-url', () => {
  it('is the base of pingUrl when given (a reverse proxy with a path prefix)', async () => {
    const api = await startTestServer({ publicUrl: 'https://vigil.example.com/monitoring/' });
    try {
      const check = await createHeartbeat(api);
      expect(check.heartbeat.pingUrl).toBe(`https://vigil.example.com/monitoring/ping/${check.heartbeat.pingToken}`);
    } finally {
      await api.close();
    }
  });

  it.each([
    ['vigil.example.com', '"vigil.example.com" is not a URL (expected e.g. https://vigil.example.com)'],
    ['ftp://vigil.example.com', '"ftp://vigil.example.com" must start with http:// or https://'],
    ['https://user:pw@vigil.example.com', '"https://user:pw@vigil.example.com" must not hold credentials: ping URLs are printed and pasted into jobs'],
    ['https://vigil.example.com/?a=1', '"https://vigil.example.com/?a=1" must not have a query or a fragment: /ping/{token} is appended to it'],
  ])('refuses %s', (text, message) => {
    expect(() => parsePublicUrl(text)).toThrow(message);
  });

  it('accepts an origin and drops trailing slashes', () => {
    expect(parsePublicUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
  });
});
